module example.com/ext2

go 1.26
