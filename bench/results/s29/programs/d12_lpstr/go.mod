module example.com/d12_lpstr

go 1.26
