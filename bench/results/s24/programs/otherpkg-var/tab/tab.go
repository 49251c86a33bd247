package tab

var T [8]int

func Set(i, v int) { T[i] = v }
