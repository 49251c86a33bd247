package main

import "fmt"

func main() {
	tag := "none"
	out := make([]int, 100)
	//cape:parallel for firstprivate(tag) lastprivate(tag)
	for i := 0; i < 100; i++ {
		out[i] = len(tag)
		if i%7 == 3 && i < 50 {
			tag = fmt.Sprint("t", i)
		}
	}
	fmt.Println(tag, out[:60])
	t2 := "keep"
	//cape:parallel for firstprivate(t2) lastprivate(t2)
	for i := 0; i < 10; i++ {
		out[i] = len(t2)
		if i > 100 {
			t2 = "never"
		}
	}
	fmt.Println(t2, out[:10])
}
