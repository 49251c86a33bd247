module example.com/p3

go 1.26
