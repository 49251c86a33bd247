module cl

go 1.26
