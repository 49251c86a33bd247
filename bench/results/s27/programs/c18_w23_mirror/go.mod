module example.com/w23_mirror

go 1.26
