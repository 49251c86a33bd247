package main

import (
	"fmt"
	"time"
)

func main() {
	loc := time.UTC
	hour := make([]int, 4)
	//cape:parallel for
	for i := 0; i < 4; i++ {
		hour[i] = time.Unix(int64(i)*7200, 0).In(loc).Hour()
	}
	fmt.Println(hour)
}
