module example.com/a5_stride_overlap

go 1.26
