// Checksums of two data sets computed in two sections, with the hashers made before.
package main

import (
	"crypto/sha256"
	"fmt"
	"hash/fnv"
)

func main() {
	a := make([]byte, 1<<16)
	b := make([]byte, 1<<16)
	for i := range a {
		a[i] = byte(i * 31)
		b[i] = byte(i * 17)
	}
	ha := sha256.New()
	hb := fnv.New64a()
	//cape:parallel sections
	{
		//cape:section
		{
			ha.Write(a)
		}
		//cape:section
		{
			hb.Write(b)
		}
	}
	fmt.Printf("%x %x\n", ha.Sum(nil)[:8], hb.Sum64())
}
