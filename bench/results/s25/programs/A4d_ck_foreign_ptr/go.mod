module forctr

go 1.26
