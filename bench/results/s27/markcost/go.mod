module markcost

go 1.26
