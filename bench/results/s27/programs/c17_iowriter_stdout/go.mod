module wr

go 1.26
