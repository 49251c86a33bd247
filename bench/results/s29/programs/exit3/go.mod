module example.com/exit3

go 1.26
