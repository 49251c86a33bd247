package main

import "fmt"

type Base struct {
	ID    int
	Score float64
}

func (b *Base) Bump(v float64) { b.Score += v }

type Named struct {
	Base
	Tag [2]byte
}

func main() {
	ms := make([]Named, 8)
	for i := range ms {
		ms[i].ID = i
	}
	//cape:parallel for
	for i := 0; i < len(ms); i++ {
		ms[i].Bump(float64(i) * 0.5)
	}
	fmt.Println(ms)
}
