module example.com/logtofile

go 1.26
