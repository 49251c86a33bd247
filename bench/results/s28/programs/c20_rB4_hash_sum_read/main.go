package main

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"
)

func main() {
	out := make([]uint64, 4)
	//cape:parallel for
	for i := 0; i < 4; i++ {
		h := sha1.New()
		h.Write([]byte{byte(i)})
		s := h.Sum(nil)
		out[i] = binary.BigEndian.Uint64(s)
	}
	fmt.Printf("%x\n", out)
}
