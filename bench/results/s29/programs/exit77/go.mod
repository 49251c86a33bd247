module example.com/exit77

go 1.26
