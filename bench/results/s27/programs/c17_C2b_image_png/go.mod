module img

go 1.26
