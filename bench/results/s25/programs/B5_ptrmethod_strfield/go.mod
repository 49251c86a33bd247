module strfield

go 1.26
