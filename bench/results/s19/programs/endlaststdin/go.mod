module endlaststdin

go 1.26
