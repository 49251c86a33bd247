module example.com/p138_regexp_shared

go 1.26
