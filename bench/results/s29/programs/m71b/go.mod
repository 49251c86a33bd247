module example.com/m71b

go 1.26
