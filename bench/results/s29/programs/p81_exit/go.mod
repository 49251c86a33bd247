module example.com/p81_exit

go 1.26
