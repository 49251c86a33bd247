module shx

go 1.26
