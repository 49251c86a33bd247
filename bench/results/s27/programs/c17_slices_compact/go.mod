module compact

go 1.26
