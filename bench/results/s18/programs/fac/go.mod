module example.com/fac

go 1.26
