module example.com/p140_crc_table

go 1.26
