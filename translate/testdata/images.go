package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
)

// Images of package image whose pixels a region writes: their
// constructors become the runtime's, which make the pixels in the arena.

func main() {
	w, h := 16, 8
	img := image.NewGray(image.Rect(0, 0, w, h))
	rgba := image.NewRGBA(image.Rect(0, 0, w, h))
	lit := &image.Gray{Pix: make([]uint8, w*h), Stride: w, Rect: image.Rect(0, 0, w, h)}
	//cape:parallel for
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetGray(x, y, color.Gray{uint8(x * y)})
			rgba.Set(x, y, color.RGBA{uint8(x), uint8(y), 0, 255})
			lit.Pix[y*lit.Stride+x] = img.GrayAt(x, y).Y
		}
	}
	if err := png.Encode(os.Stdout, img); err != nil {
		fmt.Println(err)
	}
	fmt.Println(rgba.Pix[4], lit.Pix[w+1])
}
