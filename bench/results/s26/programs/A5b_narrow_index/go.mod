module example.com/a5b_narrow_index

go 1.26
