package main

import "fmt"

func score(x int) int { return (x * 7919) % 1000 }

func main() {
	n := 10000
	best, worst := -1, 1<<30
	//cape:parallel for reduction(max:best) reduction(min:worst)
	for i := 0; i < n; i++ {
		if v := score(i); v > best {
			best = v
		}
		if score(i) < worst {
			worst = score(i)
		}
	}
	fmt.Println(best, worst)
}
