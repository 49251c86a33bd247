module example.com/A1b_resize_field

go 1.26
