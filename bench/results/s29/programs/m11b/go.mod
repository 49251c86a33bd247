module example.com/m11b

go 1.26
