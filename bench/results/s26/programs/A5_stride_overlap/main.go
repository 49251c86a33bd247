package main

import "fmt"

func main() {
	a := make([]int, 20)
	//cape:parallel for
	for i := 0; i < 4; i++ {
		for j := 0; j <= 4; j++ { // 5 values per stride of 4: a[i*4+4] is also a[(i+1)*4+0]
			if j == 0 {
				a[i*4+j] = 0
			} else {
				a[i*4+j] = 7
			}
		}
	}
	fmt.Println(a)
}
