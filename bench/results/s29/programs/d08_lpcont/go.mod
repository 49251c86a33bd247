module example.com/d08_lpcont

go 1.26
