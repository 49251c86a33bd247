package main

import "fmt"

var _ = fmt.Sprint

func main() {
	a := make([]int, 64)
	type M struct{ C int }
	m := M{C: 3}
	//cape:parallel for
	for i := 0; i < 6; i++ {
		for j := 0; j <= m.C; j++ {
			if j == 0 {
				a[i*m.C+j] = 0
			} else {
				a[i*m.C+j] = 7
			}
		}
	}
	fmt.Println(a)
}
