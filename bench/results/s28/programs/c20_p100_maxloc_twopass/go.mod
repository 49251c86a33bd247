module example.com/p100_maxloc_twopass

go 1.26
