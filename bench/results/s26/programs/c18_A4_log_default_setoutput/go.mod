module example.com/A4_log_default_setoutput

go 1.26
