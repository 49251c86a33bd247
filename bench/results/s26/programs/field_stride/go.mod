module example.com/dep2

go 1.22
