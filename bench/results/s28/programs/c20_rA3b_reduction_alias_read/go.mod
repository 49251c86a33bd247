module example.com/rA3b_reduction_alias_read

go 1.26
