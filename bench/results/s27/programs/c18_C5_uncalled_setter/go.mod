module example.com/C5_uncalled_setter

go 1.26
