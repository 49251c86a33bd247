package main

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
)

// An image whose pixels may have been made where CAPE cannot place them:
// the program decodes images.

func main() {
	var buf bytes.Buffer
	if _, err := png.Decode(&buf); err != nil {
		fmt.Println(err)
	}
	img := image.NewGray(image.Rect(0, 0, 4, 4))
	//cape:parallel for
	for y := 0; y < 4; y++ {
		img.Pix[y*img.Stride] = 1 // want "img.Pix is written through in the parallel region, but its memory comes from field Pix of an image.Gray, and the program decodes images \\(png.Decode at err_images.go:15\\)"
	}
	fmt.Println(img.Pix)
}
