module forclo

go 1.26
