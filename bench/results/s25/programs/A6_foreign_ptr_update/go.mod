module ptrupd

go 1.26
