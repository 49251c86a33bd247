package main

import (
	"fmt"
	"os"
)

func main() {
	names := []string{"go.mod", "main.go"}
	size := make([]int, len(names))
	//cape:parallel for
	for i := 0; i < len(names); i++ {
		f, err := os.Open(names[i])
		if err != nil {
			continue
		}
		buf := make([]byte, 16)
		k, _ := f.Read(buf)
		f.Close()
		size[i] = k
	}
	fmt.Println(size)
}
