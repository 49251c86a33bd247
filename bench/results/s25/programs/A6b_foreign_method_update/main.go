package main

import (
	"fmt"

	"fp/lib"
)

func main() {
	accs := make([]lib.Acc, 3)
	//cape:parallel for
	for i := 0; i < 12; i++ {
		accs[i%3].Add(1)
	}
	fmt.Println(accs)
}
