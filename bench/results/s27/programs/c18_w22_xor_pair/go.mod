module example.com/w22_xor_pair

go 1.26
