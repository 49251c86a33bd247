// CRC-32C checksums of data blocks with a table made once.
package main

import (
	"fmt"
	"hash/crc32"
)

func main() {
	nb, bs := 64, 1024
	data := make([]byte, nb*bs)
	for i := range data {
		data[i] = byte(i * 7)
	}
	tbl := crc32.MakeTable(crc32.Castagnoli)
	sums := make([]uint32, nb)
	//cape:parallel for
	for b := 0; b < nb; b++ {
		sums[b] = crc32.Checksum(data[b*bs:(b+1)*bs], tbl)
	}
	fmt.Println(sums[0], sums[63])
}
