module example.com/C3_value_getter_bound

go 1.26
