module example.com/r_A1b

go 1.26
