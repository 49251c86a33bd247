package main

import (
	"fmt"
	"log"
	"os"
)

func main() {
	f, err := os.Create("setup.log")
	if err != nil {
		log.Fatal(err)
	}
	log.SetOutput(f)
	log.SetFlags(0)
	log.Println("setup done")
	f.Close()
	log.SetOutput(os.Stdout)
	a := make([]int, 8)
	//cape:parallel for
	for i := 0; i < 8; i++ {
		a[i] = i * i
		log.Printf("iter %d", i)
	}
	fmt.Println(a)
}
