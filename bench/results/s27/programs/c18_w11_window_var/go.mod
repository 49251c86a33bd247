module example.com/w11_window_var

go 1.26
