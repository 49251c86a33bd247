module example.com/d04_sharedgen

go 1.26
