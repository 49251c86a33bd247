module example.com/rnd

go 1.26
