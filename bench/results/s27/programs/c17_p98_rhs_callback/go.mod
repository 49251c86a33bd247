module example.com/p98_rhs_callback

go 1.26
