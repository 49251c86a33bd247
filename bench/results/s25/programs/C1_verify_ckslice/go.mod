module vr

go 1.26
