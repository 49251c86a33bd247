module example.com/d07_lpe

go 1.26
