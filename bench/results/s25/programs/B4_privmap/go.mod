module privmap

go 1.26
