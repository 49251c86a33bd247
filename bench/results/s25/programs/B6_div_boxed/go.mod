module divboxed

go 1.26
