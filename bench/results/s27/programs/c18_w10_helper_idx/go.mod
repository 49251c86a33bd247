module example.com/w10_helper_idx

go 1.26
