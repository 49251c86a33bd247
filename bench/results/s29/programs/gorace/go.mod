module example.com/gorace

go 1.26
