module example.com/w13_zero_func

go 1.26
