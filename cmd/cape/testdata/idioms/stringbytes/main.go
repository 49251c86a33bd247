// Command stringbytes writes, in parallel regions, the bytes and runes
// converted from strings ([]byte(s), []rune(s), a named byte-slice type):
// new memory, as make's, that moves to the arena (cape.BytesOf,
// cape.RunesOf); a conversion inside an iteration stays its own.
package main

import (
	"fmt"
	"os"
	"strings"
)

type text []byte

func upper(s string) string {
	r := []rune(s)
	//cape:parallel for
	for i := range r {
		if r[i] >= 'a' && r[i] <= 'z' {
			r[i] -= 32
		}
	}
	return string(r)
}

func main() {
	s := strings.Repeat("héllo wörld ", 3)
	if len(os.Args) > 1 {
		s = os.Args[1]
	}
	b := text(s)
	//cape:parallel for
	for i := 0; i < len(b); i++ {
		if b[i] == ' ' {
			b[i] = '_'
		}
	}
	out := make([]int, 4)
	//cape:parallel for
	for i := 0; i < 4; i++ {
		w := []byte(s) // the iteration's own
		w[0] = byte('a' + i)
		out[i] = int(w[0]) + len(w)
	}
	fmt.Println(string(b), upper(s), out)
}
