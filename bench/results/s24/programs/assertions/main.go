package main

import "fmt"

type box struct {
	w []float64
	n int
}

type shape interface{ area() float64 }

func (b *box) area() float64 { return float64(len(b.w)) }

func main() {
	var s any = &box{w: make([]float64, 100)}
	var sl any = make([]float64, 100)
	items := []any{&box{w: make([]float64, 100)}, &box{w: make([]float64, 100)}}
	var sh shape = &box{w: make([]float64, 100)}
	//cape:parallel for
	for i := 0; i < 100; i++ {
		sl.([]float64)[i] = float64(i)
		items[i%2].(*box).w[i] = 3
		b, ok := s.(*box)
		if ok {
			b.w[i] = 1
		}
		sh.(*box).w[i] = 5
	}
	t := 0.0
	for i := 0; i < 100; i++ {
		t += s.(*box).w[i] + sl.([]float64)[i] + items[0].(*box).w[i] + items[1].(*box).w[i]*2 + sh.(*box).w[i]
	}
	fmt.Println(t)
}
