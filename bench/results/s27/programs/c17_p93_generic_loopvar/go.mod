module gen

go 1.26
