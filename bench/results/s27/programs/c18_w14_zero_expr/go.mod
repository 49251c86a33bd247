module example.com/w14_zero_expr

go 1.26
