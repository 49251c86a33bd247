module example.com/C1_foreign_value_setter

go 1.26
