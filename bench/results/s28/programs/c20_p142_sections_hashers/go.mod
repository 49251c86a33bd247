module example.com/p142_sections_hashers

go 1.26
