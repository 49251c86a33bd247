// Command closure runs a small image pipeline whose parallel loop lives in
// one helper, forRows, and whose work is handed to it as function values:
// closures that capture the image, an interface of pixel filters, and a
// method value. It prints checksums of the result.
//
// CAPE follows every function value to its definition: the slices that the
// closures and methods write (dst, counts) are found, and their make calls
// move to the arena, so each node's rows reach every node. A function
// value CAPE cannot follow (a struct field, a map element, one from another
// package) is refused at translation, never run with a lost write.
package main

import (
	"flag"
	"fmt"
)

const bins = 8

// forRows calls body(y) for every row y; the rows are split across the
// nodes.
func forRows(h int, body func(y int)) {
	//cape:parallel for schedule(static)
	for y := 0; y < h; y++ {
		body(y)
	}
}

// A filter maps one pixel value. Its method is unexported, so only this
// package's types implement it: CAPE walks each implementation.
type filter interface {
	pixel(v float32) float32
}

type gain float32

func (g gain) pixel(v float32) float32 { return v * float32(g) }

type clamp struct{ lo, hi float32 }

func (c clamp) pixel(v float32) float32 { return min(max(v, c.lo), c.hi) }

// rowCounts holds a histogram of bins buckets per row.
type rowCounts []int64

// add counts the pixel values of row y (values in [0, 1]).
func (c rowCounts) add(y int, row []float32) {
	for _, v := range row {
		b := min(int(v*bins), bins-1)
		c[y*bins+b]++
	}
}

func main() {
	w := flag.Int("w", 320, "image width")
	h := flag.Int("h", 240, "image height")
	flag.Parse()
	width, height := max(*w, 3), max(*h, 3)

	src := make([]float32, width*height)
	for y := range height {
		for x := range width {
			src[y*width+x] = float32((x*7+y*13)%97) / 96
		}
	}

	// A closure capturing src and dst: a 3×3 box blur (edges copied).
	dst := make([]float32, width*height)
	blur := func(y int) {
		for x := range width {
			if x == 0 || y == 0 || x == width-1 || y == height-1 {
				dst[y*width+x] = src[y*width+x]
				continue
			}
			var s float32
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					s += src[(y+dy)*width+x+dx]
				}
			}
			dst[y*width+x] = s / 9
		}
	}
	forRows(height, blur)

	// Filters chosen at run time, called through an interface.
	chain := []filter{gain(1.5), clamp{0, 1}}
	forRows(height, func(y int) {
		row := dst[y*width : (y+1)*width]
		for x, v := range row {
			for _, f := range chain {
				v = f.pixel(v)
			}
			row[x] = v
		}
	})

	// A method called from a closure, writing its receiver's rows.
	counts := make(rowCounts, height*bins)
	forRows(height, func(y int) { counts.add(y, dst[y*width:(y+1)*width]) })

	var sum float64
	for _, v := range dst {
		sum += float64(v)
	}
	total := make([]int64, bins)
	for i, c := range counts {
		total[i%bins] += c
	}
	fmt.Printf("w=%d h=%d sum=%.4f histogram=%v\n", width, height, sum, total)
}
