module example.com/min_ckfield

go 1.26
