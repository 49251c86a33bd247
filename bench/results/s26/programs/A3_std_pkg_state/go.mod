module example.com/stdpkgstate

go 1.26
