module example.com/g13_go121_array_slice

go 1.21
