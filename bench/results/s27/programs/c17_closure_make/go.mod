module mk

go 1.26
