module example.com/A5_rand_in_subpkg

go 1.26
