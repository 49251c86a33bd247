module example.com/rA3_guard_alias

go 1.26
