module example.com/D1_false_mark_stride3

go 1.26
