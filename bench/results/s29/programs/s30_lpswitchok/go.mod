module example.com/s30_lpswitchok

go 1.26
