module example.com/p122_c_style_private

go 1.26
