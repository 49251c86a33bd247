package main

import (
	"fmt"
	"log"
	"os"
)

func main() {
	f, err := os.Create("run.log")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	log.Default().SetOutput(f)
	log.Default().SetFlags(0)
	a := make([]int, 12)
	//cape:parallel for
	for i := 0; i < 12; i++ {
		a[i] = i * i
		log.Printf("iteration %d -> %d", i, a[i])
	}
	fmt.Println(a)
}
