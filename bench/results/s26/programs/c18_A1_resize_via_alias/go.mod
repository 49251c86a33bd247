module example.com/A1_resize_via_alias

go 1.26
