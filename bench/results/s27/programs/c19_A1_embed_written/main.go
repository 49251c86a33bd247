package main

import (
	_ "embed"
	"fmt"
)

//go:embed data.txt
var raw []byte

func main() {
	//cape:parallel for
	for i := 0; i < len(raw); i++ {
		raw[i] -= 32
	}
	fmt.Println(string(raw))
}
