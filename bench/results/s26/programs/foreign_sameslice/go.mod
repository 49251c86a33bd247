module example.com/p4

go 1.26
