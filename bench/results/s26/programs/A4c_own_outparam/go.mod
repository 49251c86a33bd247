module example.com/own

go 1.26
