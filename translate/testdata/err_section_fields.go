package main

import "fmt"

// Sections may assign different fields of one struct; a field (or the
// whole struct) one section assigns may not be used by another.

type result struct {
	sum, count int
	hist       [4]int
}

func main() {
	data := make([]int, 100)
	var a result
	var b result
	//cape:parallel sections
	{
		//cape:section
		{
			for _, v := range data {
				a.sum += v // want "a.sum is assigned in section 0 and used in section 1"
			}
			b = result{} // want "b is assigned in section 0 and used in section 1"
		}
		//cape:section
		{
			for _, v := range data {
				a.count++
				a.hist[v%4]++
			}
			fmt.Println(a.sum, b.count)
		}
	}
	fmt.Println(a, b)
}
