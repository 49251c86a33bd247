module example.com/A3_window_forms

go 1.26
