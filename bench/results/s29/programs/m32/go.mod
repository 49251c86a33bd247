module example.com/m32

go 1.26
