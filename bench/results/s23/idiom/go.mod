module example.com/idiom

go 1.26
