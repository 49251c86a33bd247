// Command divboxed divides by variables that its sections write, which move
// to the arena (1/sa became 1/*sa, the start of a comment: the translation
// did not parse).
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
