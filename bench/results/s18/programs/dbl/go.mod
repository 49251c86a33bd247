module example.com/dbl

go 1.26
