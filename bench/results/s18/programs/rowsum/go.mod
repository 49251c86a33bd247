module example.com/rowsum

go 1.26
