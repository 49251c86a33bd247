module example.com/fv

go 1.26
