module example.com/A2_prev_row_view

go 1.26
