module example.com/lp

go 1.26
