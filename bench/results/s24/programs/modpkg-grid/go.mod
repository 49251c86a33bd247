module example.com/pkgsolver

go 1.26
