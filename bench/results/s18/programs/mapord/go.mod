module example.com/mapord

go 1.26
