module example.com/C6_output_restored

go 1.26
