module example.com/pkgv

go 1.26
