module example.com/d05_exit

go 1.26
