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
	log.SetOutput(f)
	log.SetFlags(0)
	log.Println("start")
	a := make([]int, 12)
	//cape:parallel for
	for i := 0; i < 12; i++ {
		a[i] = i * i
		log.Printf("iteration %d -> %d", i, a[i])
	}
	log.Println("end")
	fmt.Println(a)
}
