package main

import "fmt"

var a = make([]int, 10)

func init() {
	//cape:parallel for // want "parallel region in an init function"
	for i := range 10 {
		a[i] = i
	}
}

func main() {
	// cape:parallel for // want "must not have a space after //"
	for i := range 10 {
		a[i] = i
	}
	//cape:parallel loop // want "unsupported construct //cape:parallel loop"
	for i := range 10 {
		a[i] = i
	}
	//cape: parallel for // want "must not have a space after //cape:: write \"//cape:parallel for\""
	for i := range 10 {
		a[i] = i
	}
	//cape:serial // want "unknown directive //cape:serial"
	//cape:parallel for // want "must precede a for statement"
	fmt.Println(a)
	//cape:parallel sections
	{
		//cape:section
		{
			a[0] = 1
		}
		a[1] = 2 // want "may only contain blocks"
	}
	//cape:section // want "outside a //cape:parallel sections block"
	{
		a[2] = 3
	}
	if len(a) > 0 {
		fmt.Println(a)
		//cape:parallel for // want "must be on the line before the statement"
	}
}
