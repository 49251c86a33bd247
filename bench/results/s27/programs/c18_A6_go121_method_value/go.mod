module example.com/A6_go121_method_value

go 1.21
