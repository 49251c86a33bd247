module em

go 1.26
