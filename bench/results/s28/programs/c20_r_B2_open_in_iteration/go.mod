module example.com/r_B2_open_in_iteration

go 1.26
