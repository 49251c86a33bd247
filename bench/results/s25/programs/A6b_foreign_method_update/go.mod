module fp

go 1.26
