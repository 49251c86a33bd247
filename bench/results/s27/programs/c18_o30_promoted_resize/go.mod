module example.com/o30_promoted_resize

go 1.26
