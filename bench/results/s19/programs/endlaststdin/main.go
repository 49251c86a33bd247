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
			a[i] += (i + k) % 17
		}
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		a[i] = a[i] % 17
	}
	tot := 0
	for sc.Scan() {
		v, _ := strconv.Atoi(sc.Text())
		tot += a[v%n]
	}
	fmt.Println("n", n, "tot", tot)
}
