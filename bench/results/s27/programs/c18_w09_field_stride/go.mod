module example.com/w09_field_stride

go 1.26
