module example.com/rB4_hash_sum_read

go 1.26
