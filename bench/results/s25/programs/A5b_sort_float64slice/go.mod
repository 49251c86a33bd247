module sortrows

go 1.26
