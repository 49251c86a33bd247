module example.com/a1c

go 1.26
