module example.com/A8_two_stride_symbols

go 1.26
