module example.com/rA2_priv_range_assign

go 1.26
