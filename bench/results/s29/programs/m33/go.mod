module example.com/m33

go 1.26
