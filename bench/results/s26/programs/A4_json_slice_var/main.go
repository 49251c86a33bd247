package main

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"fmt"
)

func main() {
	var vals []float64
	if err := json.Unmarshal([]byte(`[1,2,3,4,5,6]`), &vals); err != nil {
		panic(err)
	}
	//cape:parallel for
	for i := 0; i < len(vals); i++ {
		vals[i] *= 2
	}
	fmt.Println(vals)

	var buf bytes.Buffer
	gob.NewEncoder(&buf).Encode([]int{1, 2, 3, 4, 5, 6})
	var xs []int
	gob.NewDecoder(&buf).Decode(&xs)
	//cape:parallel for
	for i := 0; i < len(xs); i++ {
		xs[i] *= 7
	}
	fmt.Println(xs)

	var p *[4]float64
	json.Unmarshal([]byte(`[1,2,3,4]`), &p)
	//cape:parallel for
	for i := 0; i < 4; i++ {
		p[i] += 0.5
	}
	fmt.Println(*p)
}
