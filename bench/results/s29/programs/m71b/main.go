package main

import (
	"fmt"
	"os"
)

const chunk = 4096

func load(name string, dst []byte, off int64) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.ReadAt(dst, off)
	return err
}

func main() {
	n := 16
	buf := make([]byte, n*chunk)
	bad := make([]bool, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		bad[i] = load("data.bin", buf[i*chunk:(i+1)*chunk], int64(i*chunk)) != nil
	}
	s := 0
	for _, b := range buf {
		s += int(b)
	}
	fmt.Println(s, bad[0])
}
