module example.com/last_main

go 1.26
