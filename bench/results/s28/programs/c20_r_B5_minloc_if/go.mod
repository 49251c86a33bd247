module example.com/r_B5_minloc_if

go 1.26
