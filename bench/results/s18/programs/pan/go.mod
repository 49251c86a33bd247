module example.com/pan

go 1.26
