module example.com/sec

go 1.26
