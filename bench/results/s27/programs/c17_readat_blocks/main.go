package main

import (
	"fmt"
	"os"
)

func main() {
	// blob.bin exists before the job (every node writing it first would race).
	f, err := os.Open("blob.bin")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	sums := make([]int, 8)
	//cape:parallel for
	for b := 0; b < 8; b++ {
		buf := make([]byte, 512)
		if _, err := f.ReadAt(buf, int64(b*512)); err != nil {
			panic(err)
		}
		for _, x := range buf {
			sums[b] += int(x)
		}
	}
	fmt.Println(sums)
}
