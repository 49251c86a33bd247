package main

import (
	"fmt"
	"hash/fnv"
)

func main() {
	h1, h2 := fnv.New64a(), fnv.New64a()
	//cape:parallel sections
	{
		//cape:section
		{
			h1.Write([]byte("first"))
		}
		//cape:section
		{
			h2.Write([]byte("second"))
		}
	}
	fmt.Printf("%x %x\n", h1.Sum64(), h2.Sum64())
}
