package main

import "fmt"

type Best struct {
	Score float64
	Idx   int
}

func main() {
	names := []string{"ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen", "ibis"}
	tag := "none"
	best := Best{-1, -1}
	//cape:parallel for lastprivate(tag, best)
	for i := 0; i < len(names)*10; i++ {
		nm := names[i%len(names)]
		if len(nm) > 3 || i >= 40 {
			continue
		}
		tag = fmt.Sprintf("%s-%d", nm, i)
		best = Best{float64(i) / 2, i}
	}
	fmt.Printf("%s %+v\n", tag, best)
}
