package main

import (
	"crypto/sha256"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
)

func mandel(cx, cy float64) uint8 {
	x, y := 0.0, 0.0
	for k := 0; k < 255; k++ {
		x, y = x*x-y*y+cx, 2*x*y+cy
		if x*x+y*y > 4 {
			return uint8(k)
		}
	}
	return 255
}

func main() {
	w, h := 160, 120
	img := image.NewGray(image.Rect(0, 0, w, h))
	rgba := image.NewRGBA(image.Rect(0, 0, w, h))
	//cape:parallel for schedule(dynamic,4)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := mandel(-2+3*float64(x)/float64(w), -1.2+2.4*float64(y)/float64(h))
			img.SetGray(x, y, color.Gray{v})
			rgba.Set(x, y, color.RGBA{v, 255 - v, v / 2, 255})
			i := rgba.PixOffset(x, y)
			rgba.Pix[i+3] = 200
		}
	}
	f, err := os.Create("m.png")
	if err != nil {
		panic(err)
	}
	if err := png.Encode(f, img); err != nil {
		panic(err)
	}
	f.Close()
	fmt.Printf("%x %x\n", sha256.Sum256(img.Pix), sha256.Sum256(rgba.Pix))
}
