package main

import (
	"fmt"
	"os"
)

func main() {
	//cape:parallel for
	for i := 0; i < 100; i++ {
		if i*i == 169 {
			fmt.Println("found", i)
			os.Exit(0)
		}
	}
	fmt.Println("not found")
}
