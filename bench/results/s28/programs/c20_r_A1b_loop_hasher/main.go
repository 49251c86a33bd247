package main

import (
	"fmt"
	"hash/crc32"
)

func main() {
	data := make([]byte, 4096)
	for i := range data {
		data[i] = byte(i * 7)
	}
	h := crc32.NewIEEE() // one checksum of the header block, made before the loop
	sq := make([]int, 8)
	//cape:parallel for
	for b := 0; b < 8; b++ {
		if b == 7 {
			h.Write(data[b*512 : (b+1)*512])
		}
		sq[b] = b * b
	}
	fmt.Printf("%08x %v\n", h.Sum32(), sq)
}
