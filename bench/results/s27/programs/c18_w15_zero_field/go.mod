module example.com/w15_zero_field

go 1.26
