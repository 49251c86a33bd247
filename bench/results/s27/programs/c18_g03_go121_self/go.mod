module example.com/g03_go121_ptrcall_store

go 1.21
