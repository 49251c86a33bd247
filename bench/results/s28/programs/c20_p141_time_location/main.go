// Local hour of each UTC timestamp, with the location loaded once before the loop.
package main

import (
	"fmt"
	"time"
)

func main() {
	loc := time.UTC
	if l, err := time.LoadLocation("UTC"); err == nil {
		loc = l
	}
	n := 1000
	stamps := make([]int64, n)
	for i := range stamps {
		stamps[i] = 1700000000 + int64(i)*3607
	}
	hour := make([]int8, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		hour[i] = int8(time.Unix(stamps[i], 0).In(loc).Hour())
	}
	fmt.Println(hour[0], hour[999])
}
