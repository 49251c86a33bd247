module example.com/a5c_mul_var_zero

go 1.26
