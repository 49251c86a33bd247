module readat

go 1.26
