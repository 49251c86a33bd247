module probe

go 1.26
