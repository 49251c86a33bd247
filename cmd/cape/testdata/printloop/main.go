// Command printloop prints from inside parallel regions of every kind:
// `cape run` must print exactly what `go run` prints, in the same order.
package main

import (
	"flag"
	"fmt"
	"os"
)

func work(i int) int { return i * 3 }

func main() {
	steps := flag.Int("steps", 3, "time steps")
	flag.Parse()
	a := make([]int, 30)
	total := 0
	for t := 0; t < *steps; t++ {
		//cape:parallel for schedule(dynamic, 2) reduction(+:total)
		for i := 0; i < 30; i++ {
			a[i] += work(i)
			total += a[i]
			if i%4 == 0 {
				fmt.Printf("t=%d i=%d a=%d\n", t, i, a[i])
			}
		}
		//cape:parallel for schedule(static, 3)
		for i := 29; i >= 0; i-- {
			a[i]++
			fmt.Fprintln(os.Stdout, "down", i)
		}
		//cape:parallel for
		for i := range 9 {
			fmt.Print(i, " ")
		}
		fmt.Println("| after step", t, "total", total)
	}
	//cape:parallel sections
	{
		//cape:section
		{
			fmt.Println("section A")
			a[0] = 100
		}
		//cape:section
		{
			fmt.Println("section B")
			a[1] = 200
		}
		//cape:section
		{
			fmt.Println("section C")
		}
	}
	//cape:parallel for schedule(guided)
	for i := range 50 {
		if i%7 == 0 {
			fmt.Print("g", i, " ")
		}
	}
	fmt.Println()
	fmt.Println(a)
}
