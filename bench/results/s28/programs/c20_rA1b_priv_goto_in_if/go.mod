module example.com/rA1b_priv_goto_in_if

go 1.26
