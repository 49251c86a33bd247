module example.com/s07_rand_forms

go 1.26
