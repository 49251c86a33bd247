module example.com/d09_lpc

go 1.26
