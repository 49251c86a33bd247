package main

import "fmt"

func main() {
	who := -1
	a := make([]int, 10)
	//cape:parallel sections lastprivate(who)
	{
		//cape:section
		{
			who = 1
			a[0] = 1
		}
		//cape:section
		{
			who = 2
			a[1] = 2
		}
		//cape:section
		{
			a[2] = 3
		}
	}
	fmt.Println(who, a[:3])
}
