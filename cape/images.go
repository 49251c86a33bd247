package cape

import (
	"image"
	"image/color"
	"math"
	"math/bits"
)

// The constructors of package image's pixel-buffer images, with their
// pixels in the arena: the translator's form of image.NewGray(r) and the
// others when a parallel region writes the pixels (img.Pix[i] = v,
// img.SetGray(x, y, c)). Each makes what its image package counterpart
// makes, the image itself in the arena too (but a Paletted's, whose
// palette holds interface values), and panics as it does on a rectangle
// too large to allocate.

// imagePix returns arena memory for the pixels of r at bpp bytes each, as
// the image package's constructors size them.
func imagePix(r image.Rectangle, bpp int, name string) []uint8 {
	n, ok := 0, r.Dx() >= 0 && r.Dy() >= 0
	if ok {
		hi, lo := bits.Mul64(uint64(r.Dx()), uint64(r.Dy()))
		hi2, lo2 := bits.Mul64(lo, uint64(bpp))
		ok = hi == 0 && hi2 == 0 && lo2 <= math.MaxInt
		n = int(lo2)
	}
	if !ok {
		panic("image: New" + name + " Rectangle has huge or negative dimensions")
	}
	return Make[uint8](n)
}

// inArena returns a copy of img in the arena (its pixels are there too).
func inArena[T any](img T) *T {
	p := New[T]()
	*p = img
	return p
}

// NewGray is image.NewGray with its pixels in the arena.
func NewGray(r image.Rectangle) *image.Gray {
	return inArena(image.Gray{Pix: imagePix(r, 1, "Gray"), Stride: r.Dx(), Rect: r})
}

// NewGray16 is image.NewGray16 with its pixels in the arena.
func NewGray16(r image.Rectangle) *image.Gray16 {
	return inArena(image.Gray16{Pix: imagePix(r, 2, "Gray16"), Stride: 2 * r.Dx(), Rect: r})
}

// NewAlpha is image.NewAlpha with its pixels in the arena.
func NewAlpha(r image.Rectangle) *image.Alpha {
	return inArena(image.Alpha{Pix: imagePix(r, 1, "Alpha"), Stride: r.Dx(), Rect: r})
}

// NewAlpha16 is image.NewAlpha16 with its pixels in the arena.
func NewAlpha16(r image.Rectangle) *image.Alpha16 {
	return inArena(image.Alpha16{Pix: imagePix(r, 2, "Alpha16"), Stride: 2 * r.Dx(), Rect: r})
}

// NewRGBA is image.NewRGBA with its pixels in the arena.
func NewRGBA(r image.Rectangle) *image.RGBA {
	return inArena(image.RGBA{Pix: imagePix(r, 4, "RGBA"), Stride: 4 * r.Dx(), Rect: r})
}

// NewRGBA64 is image.NewRGBA64 with its pixels in the arena.
func NewRGBA64(r image.Rectangle) *image.RGBA64 {
	return inArena(image.RGBA64{Pix: imagePix(r, 8, "RGBA64"), Stride: 8 * r.Dx(), Rect: r})
}

// NewNRGBA is image.NewNRGBA with its pixels in the arena.
func NewNRGBA(r image.Rectangle) *image.NRGBA {
	return inArena(image.NRGBA{Pix: imagePix(r, 4, "NRGBA"), Stride: 4 * r.Dx(), Rect: r})
}

// NewNRGBA64 is image.NewNRGBA64 with its pixels in the arena.
func NewNRGBA64(r image.Rectangle) *image.NRGBA64 {
	return inArena(image.NRGBA64{Pix: imagePix(r, 8, "NRGBA64"), Stride: 8 * r.Dx(), Rect: r})
}

// NewCMYK is image.NewCMYK with its pixels in the arena.
func NewCMYK(r image.Rectangle) *image.CMYK {
	return inArena(image.CMYK{Pix: imagePix(r, 4, "CMYK"), Stride: 4 * r.Dx(), Rect: r})
}

// NewPaletted is image.NewPaletted with its pixels in the arena.
func NewPaletted(r image.Rectangle, p color.Palette) *image.Paletted {
	return &image.Paletted{Pix: imagePix(r, 1, "Paletted"), Stride: r.Dx(), Rect: r, Palette: p}
}
