module example.com/jsonslice

go 1.26
