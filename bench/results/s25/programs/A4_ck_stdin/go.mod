module ckstdin

go 1.26
