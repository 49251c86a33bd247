package main

import "fmt"

func main() {
	res := make([]int64, 100)
	done := make(chan bool)
	go func() {
		//cape:parallel for
		for i := 0; i < 100; i++ {
			res[i] += int64(i)
		}
		close(done)
	}()
	<-done
	fmt.Println("res", res[99])
	//cape:parallel for schedule(static,2)
	for i := 0; i < 6; i++ {
		res[i] = int64(i)
	}
	fmt.Println(res[:6])
}
