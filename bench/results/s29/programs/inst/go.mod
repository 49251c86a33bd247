module example.com/inst

go 1.26
