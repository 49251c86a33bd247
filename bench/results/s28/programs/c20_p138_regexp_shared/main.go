// Records parsed with a regular expression compiled once before the loop.
package main

import (
	"fmt"
	"regexp"
	"strconv"
)

func main() {
	recs := make([]string, 300)
	for i := range recs {
		recs[i] = fmt.Sprintf("id=%d temp=%d.%d unit=C", i, 10+i%25, i%10)
	}
	re := regexp.MustCompile(`temp=([0-9]+\.[0-9])`)
	temps := make([]float64, len(recs))
	//cape:parallel for
	for i := 0; i < len(recs); i++ {
		m := re.FindStringSubmatch(recs[i])
		if m != nil {
			temps[i], _ = strconv.ParseFloat(m[1], 64)
		}
	}
	s := 0.0
	for _, t := range temps {
		s += t
	}
	fmt.Printf("%.3f %.1f\n", s, temps[299])
}
