module example.com/fl

go 1.26
