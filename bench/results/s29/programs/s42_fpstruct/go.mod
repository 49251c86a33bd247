module example.com/s42_fpstruct

go 1.26
