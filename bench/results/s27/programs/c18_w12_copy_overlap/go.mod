module example.com/w12_copy_overlap

go 1.26
