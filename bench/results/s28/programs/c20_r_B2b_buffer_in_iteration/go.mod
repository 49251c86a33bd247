module example.com/r_B2b_buffer_in_iteration

go 1.26
