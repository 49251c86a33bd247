module example.com/gen_rand

go 1.26
