module example.com/d07_lpb

go 1.26
