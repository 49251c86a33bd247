module example.com/ext

go 1.26
