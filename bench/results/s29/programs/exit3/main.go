package main

import (
	"fmt"
	"log"
	"os"
)

func main() {
	mode := len(os.Args)
	//cape:parallel for
	for i := 0; i < 100; i++ {
		if i%5 == 0 {
			fmt.Println("at", i)
		}
		if i == 13 {
			switch mode {
			case 1:
				os.Exit(3)
			case 2:
				log.Fatal("bad ", i)
			default:
				panic(fmt.Sprint("bad ", i))
			}
		}
	}
	fmt.Println("not found")
}
