module example.com/guard

go 1.26
