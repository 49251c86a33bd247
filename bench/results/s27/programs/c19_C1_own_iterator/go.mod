module x

go 1.26
