module example.com/min_pkgglobal

go 1.26
