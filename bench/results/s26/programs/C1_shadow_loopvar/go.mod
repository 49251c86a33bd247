module example.com/shadowloopvar

go 1.26
