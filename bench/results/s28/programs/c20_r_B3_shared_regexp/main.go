package main

import (
	"fmt"
	"regexp"
)

func main() {
	recs := []string{"t=1", "t=22", "x", "t=333"}
	re := regexp.MustCompile(`t=([0-9]+)`)
	n := make([]int, len(recs))
	//cape:parallel for
	for i := 0; i < len(recs); i++ {
		if m := re.FindStringSubmatch(recs[i]); m != nil {
			n[i] = len(m[1])
		}
	}
	fmt.Println(n)
}
