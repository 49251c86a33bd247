module example.com/sw

go 1.26
