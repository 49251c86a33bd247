package main

import (
	"errors"
	"fmt"
	"os"
)

func load(n int) ([]float64, error) {
	if n <= 0 {
		return nil, errors.New("empty")
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i)
	}
	return v, nil
}

func main() {
	data, err := load(12)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	//cape:parallel for
	for i := 0; i < len(data); i++ {
		data[i] *= 2
	}
	fmt.Println(data)
}
