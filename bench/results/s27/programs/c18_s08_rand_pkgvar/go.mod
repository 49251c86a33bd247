module example.com/s08_rand_funcvar

go 1.26
