module example.com/r_B3b_shared_location

go 1.26
