module tuple

go 1.26
