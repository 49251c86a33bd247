// Command stdinsum reads numbers from standard input in batches, between
// parallel regions: every node must read the same input for the result to
// be go run's.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

func main() {
	sc := bufio.NewScanner(os.Stdin)
	acc := make([]int64, 32)
	batches := 0
	for {
		var batch []int64
		for len(batch) < 500 && sc.Scan() {
			v, err := strconv.ParseInt(strings.TrimSpace(sc.Text()), 10, 64)
			if err != nil {
				fmt.Println("bad line:", sc.Text())
				return
			}
			batch = append(batch, v)
		}
		if len(batch) == 0 {
			break
		}
		batches++
		m := len(batch)
		//cape:parallel for
		for i := 0; i < 32; i++ {
			for j := i; j < m; j += 32 {
				acc[i] += batch[j]*int64(i+1) + int64(m)
			}
		}
	}
	fmt.Println("batches", batches, "acc", acc)
}
