module example.com/g12_go121_addr_call

go 1.21
