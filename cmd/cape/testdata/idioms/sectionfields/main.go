// Command sectionfields fills different fields of one result struct in
// different sections, and different elements of one array.
package main

import "fmt"

type result struct {
	Sum   int64
	Count int
	Hist  [4]int
	Max   int64
}

func main() {
	data := make([]int64, 20000)
	for i := range data {
		data[i] = int64(i*7919%37) - 5
	}
	var res result
	var parts [3]int64
	//cape:parallel sections
	{
		//cape:section
		{
			for _, v := range data {
				res.Sum += v
			}
			parts[0] = res.Sum % 1000
		}
		//cape:section
		{
			for _, v := range data {
				if v > 20 {
					res.Count++
				}
				res.Hist[(v%4+4)%4]++
			}
			parts[1] = int64(res.Count)
		}
		//cape:section
		{
			for _, v := range data {
				res.Max = max(res.Max, v)
			}
			parts[2] = res.Max
		}
	}
	fmt.Printf("%+v %v\n", res, parts)
}
