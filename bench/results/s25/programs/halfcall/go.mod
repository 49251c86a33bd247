module example.com/halfcall

go 1.26
