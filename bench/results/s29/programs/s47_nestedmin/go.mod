module example.com/s47_nestedmin

go 1.26
