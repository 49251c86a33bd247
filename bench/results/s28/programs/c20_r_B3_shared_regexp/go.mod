module example.com/r_B3_shared_regexp

go 1.26
