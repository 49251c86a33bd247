module example.com/r_B4_struct_with_appended_field

go 1.26
