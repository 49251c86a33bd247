module example.com/w02_extra_write

go 1.26
