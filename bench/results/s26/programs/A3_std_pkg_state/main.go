package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"time"
)

func main() {
	level := flag.Int("level", 0, "verbosity")
	flag.Parse()
	log.SetOutput(os.Stdout)
	log.SetFlags(0)
	out := make([]int, 6)
	//cape:parallel for
	for i := 0; i < 6; i++ {
		out[i] = i * i
		if out[i] > 3 {
			log.SetPrefix(fmt.Sprintf("[last big %d] ", i)) // another package's state, through a call
			flag.Set("level", fmt.Sprint(i))
		}
		if i == 5 {
			os.Args[0] = "changed" // another package's variables, written directly
			time.Local = time.UTC
		}
	}
	log.Println("done", out)
	fmt.Println("level", *level, os.Args[0] == "changed", time.Local)
}
