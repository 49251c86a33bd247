module example.com/ckptinput

go 1.26
