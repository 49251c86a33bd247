module example.com/c17_priv_ifinit

go 1.26
