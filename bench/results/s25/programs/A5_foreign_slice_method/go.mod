module slicemeth

go 1.26
