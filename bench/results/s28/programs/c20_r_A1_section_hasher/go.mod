module example.com/r_A1

go 1.26
