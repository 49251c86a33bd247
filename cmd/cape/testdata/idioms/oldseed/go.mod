module example.com/oldseed

go 1.22
