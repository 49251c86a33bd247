module example.com/mathrandregion

go 1.26
