module mh

go 1.26
