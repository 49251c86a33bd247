package main

import "fmt"

func main() {
	var sa, sb float64
	//cape:parallel sections
	{
		//cape:section
		{
			sa = 4
		}
		//cape:section
		{
			sb = 8
		}
	}
	fmt.Println(1/sa, sb/sa)
}
