module example.com/callresult

go 1.26
