package main

import "fmt"

func inc(a []int) { a[0]++ }

func main() {
	a := make([]int, 2)
	//cape:parallel sections
	{
		//cape:section
		{
			inc(a)
		}
		//cape:section
		{
			inc(a)
		}
	}
	fmt.Println(a)
}
