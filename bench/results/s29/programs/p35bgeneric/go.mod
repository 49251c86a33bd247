module example.com/p35bgeneric

go 1.26
