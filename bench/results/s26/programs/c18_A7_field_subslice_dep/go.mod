module example.com/A7_field_subslice_dep

go 1.26
