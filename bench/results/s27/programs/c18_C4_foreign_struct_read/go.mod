module example.com/C4_foreign_struct_slice_read

go 1.26
