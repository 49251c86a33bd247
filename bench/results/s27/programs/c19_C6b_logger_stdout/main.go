package main

import (
	"fmt"
	"log"
	"os"
)

func main() {
	lg := log.New(os.Stdout, "sim: ", 0)
	n := 8
	a := make([]int, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		a[i] = i * i
		lg.Printf("cell %d = %d", i, a[i])
	}
	fmt.Println(a)
}
