package main

import (
	"fmt"
	"os"
)

func main() {
	a := make([]int, 100)
	slave := os.Getenv("CAPE_RANK") == "1"
	//cape:parallel for
	for i := range a {
		if i == 77 && slave {
			panic(fmt.Sprint("boom at ", i))
		}
		a[i] = i
	}
	fmt.Println("after", a[77])
}
