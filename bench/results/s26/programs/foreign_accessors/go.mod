module example.com/p2

go 1.26
