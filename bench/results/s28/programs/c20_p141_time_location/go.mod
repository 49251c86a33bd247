module example.com/p141_time_location

go 1.26
