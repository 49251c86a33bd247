// Command stdintail reads its first line, runs a loop of parallel regions,
// then reads the rest of its standard input after the loop, where only the
// master runs on (the slaves leave there): an input much larger than the
// stream's window must still reach the master's program.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
)

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Scan()
	n, _ := strconv.Atoi(sc.Text())
	a := make([]int, n)
	for k := 0; k < 3; k++ {
		//cape:parallel for
		for i := 0; i < n; i++ {
			a[i] += (i * (k + 1)) % 17
		}
	}
	tot, lines := 0, 0
	for sc.Scan() {
		v, _ := strconv.Atoi(sc.Text())
		tot += a[v%n]
		lines++
	}
	fmt.Println("n", n, "lines", lines, "tot", tot)
}
