module example.com/last_fn

go 1.26
