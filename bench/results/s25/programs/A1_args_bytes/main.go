package main

import (
	"fmt"
	"os"
)

func rot13(s string) string {
	b := []byte(s)
	//cape:parallel for
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = 'a' + (c-'a'+13)%26
		case c >= 'A' && c <= 'Z':
			b[i] = 'A' + (c-'A'+13)%26
		}
	}
	return string(b)
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: rot13 TEXT")
		os.Exit(2)
	}
	fmt.Println(rot13(os.Args[1]))
}
