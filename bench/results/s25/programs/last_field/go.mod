module example.com/last_field

go 1.26
