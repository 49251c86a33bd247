package main

import (
	"fmt"

	"example.com/min_pkgglobal/tab"
)

func main() {
	//cape:parallel for
	for i := 0; i < 8; i++ {
		tab.Set(i, i*i)
	}
	fmt.Println(tab.T)
}
