// Command laststring has lastprivate strings: one every iteration
// assigns, one only some do (conditional), one of a named string type, and
// one set by sections.
package main

import (
	"fmt"
	"strconv"
)

type tag string

func main() {
	n := 1000
	var last tag
	best := ""
	label := "unset"
	vals := make([]int, n)
	//cape:parallel for lastprivate(label)
	for i := 0; i < n; i++ {
		vals[i] = i * i % 977
		label = "item-" + strconv.Itoa(i) + "-" + strconv.Itoa(vals[i])
	}
	//cape:parallel for lastprivate(last)
	for i := 0; i < n; i++ {
		last = tag(strconv.Itoa(vals[i]))
	}
	//cape:parallel for lastprivate(best)
	for i := 0; i < n; i++ {
		if vals[i] > 970 {
			best = fmt.Sprintf("i=%d v=%d", i, vals[i])
		}
	}
	var who string
	//cape:parallel sections lastprivate(who)
	{
		//cape:section
		{
			who = "first"
		}
		//cape:section
		{
			who = "second, " + label
		}
	}
	fmt.Println(label, "|", best, "|", who, "|", last)
}
