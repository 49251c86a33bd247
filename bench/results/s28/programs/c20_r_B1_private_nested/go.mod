module example.com/r_B1_private_nested

go 1.26
