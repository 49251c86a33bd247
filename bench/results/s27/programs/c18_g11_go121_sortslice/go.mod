module example.com/g11_go121_sortslice

go 1.21
