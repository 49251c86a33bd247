package translate

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// Images of package image whose pixels a parallel region writes
// (img.Pix[y*img.Stride+x] = v, img.SetGray(x, y, c)): the constructors
// image.NewGray and the like make the pixels in package image, where CAPE
// cannot place them, so the translator calls the runtime's counterparts
// instead (cape.NewGray), which make them in the arena. That is sound only
// where every image of the type the program writes comes from those calls
// or from its own composite literals: not where it decodes images
// (png.Decode) or another package of the module makes them.

// imageCtors are package image's constructors of pixel-buffer images, by
// the image type they make.
var imageCtors = map[string]string{
	"Gray": "NewGray", "Gray16": "NewGray16", "Alpha": "NewAlpha", "Alpha16": "NewAlpha16",
	"RGBA": "NewRGBA", "RGBA64": "NewRGBA64", "NRGBA": "NewNRGBA", "NRGBA64": "NewNRGBA64",
	"CMYK": "NewCMYK", "Paletted": "NewPaletted",
}

// imageType returns the name of the image type (Gray) of package image that
// typ is, or a pointer to, or "".
func imageType(typ types.Type) string {
	if p, ok := typ.(*types.Pointer); ok {
		typ = p.Elem()
	}
	n, ok := typ.(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "image" || imageCtors[n.Obj().Name()] == "" {
		return ""
	}
	return n.Obj().Name()
}

// imageCtor reports whether call calls one of package image's
// constructors of pixel-buffer images.
func (t *translator) imageCtor(call *ast.CallExpr) bool {
	fn := t.packageFunc(call)
	return fn != nil && fn.Pkg().Path() == "image" && imageCtors[imageType(t.info.TypeOf(call))] == fn.Name()
}

// imagesElsewhere says why the program may hold images of package image
// that it did not make with the constructors or its own literals: a call
// that decodes one, or another package of the module that uses package
// image; "" if none.
func (t *translator) imagesElsewhere() string {
	if t.imageWhy != nil {
		return *t.imageWhy
	}
	why := ""
	for _, f := range t.p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || why != "" {
				return why == ""
			}
			fn, _ := t.externalCallee(call)
			if fn == nil {
				return true
			}
			path := fn.Pkg().Path()
			if (path == "image" || strings.HasPrefix(path, "image/") || strings.HasPrefix(path, "golang.org/x/image/")) && strings.HasPrefix(fn.Name(), "Decode") {
				why = fmt.Sprintf("the program decodes images (%s.%s at %s), whose pixels are made elsewhere", fn.Pkg().Name(), fn.Name(), t.where(call.Pos()))
			}
			return true
		})
	}
	if f := t.foreign; why == "" && f != nil && f.imp != nil {
		if lister, ok := f.imp.(interface{ Packages() []string }); ok {
			for _, path := range lister.Packages() {
				if path == t.p.types.Path() || capeOwn(path) {
					continue
				}
				imports, ok := f.importsOf(path)
				if !ok || slices.ContainsFunc(imports, func(p string) bool { return p == "image" || strings.HasPrefix(p, "image/") }) {
					why = "package " + path + " of the program uses package image too, where CAPE cannot place the images it makes"
					break
				}
			}
		}
	}
	t.imageWhy = &why
	return why
}

// imagePixels requires the pixels of every image of package image of type
// f's struct (f is its Pix field) that the program makes to be arena
// memory: its constructor calls are rewritten and its composite literals'
// values traced. It reports false, having done nothing, where f is not
// such a field.
func (t *analyzer) imagePixels(tr trace, f *types.Var, name string, why token.Pos) bool {
	if f.Pkg() == nil || f.Pkg().Path() != "image" || f.Name() != "Pix" {
		return false
	}
	img := ""
	for typ := range imageCtors {
		if obj, ok := f.Pkg().Scope().Lookup(typ).(*types.TypeName); ok {
			if st, ok := obj.Type().Underlying().(*types.Struct); ok && slices.Contains(structFields(st), f) {
				img = typ
			}
		}
	}
	if img == "" {
		return false
	}
	if elsewhere := t.imagesElsewhere(); elsewhere != "" {
		t.originErrorf(tr, why, "%s is written through in the parallel region, but its memory comes from field Pix of an image.%s, and %s", name, img, elsewhere)
		return true
	}
	for _, file := range t.p.files {
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			switch {
			case !ok || !t.imageCtor(call) || imageType(t.info.TypeOf(call)) != img || t.inRegion(call.Pos()):
				// (one made in a region is the iteration's own)
			case t.mayRunInRegion(t.code, call):
				t.originErrorf(tr, call.Pos(), "%s is written through in the parallel region at %s, and its memory may come from this image.%s, made in code that also runs inside a parallel region, where nothing can be placed in the arena: make the image before the region and pass it down", name, t.where(why), imageCtors[img])
			default:
				t.place.ctors[call] = name
			}
			return true
		})
	}
	t.traceStores(tr, t.stores.fields[f], name, "field Pix", why)
	return true
}

// structFields returns st's fields.
func structFields(st *types.Struct) []*types.Var {
	out := make([]*types.Var, st.NumFields())
	for i := range out {
		out[i] = st.Field(i)
	}
	return out
}

// imageCall places the image a call of one of package image's
// constructors makes, whose memory a region writes (img.SetGray(x, y, c)
// writes the struct's pixels): the runtime's counterpart makes the image
// and its pixels in the arena. It reports false where call is not such a
// constructor, or CAPE cannot place its images.
func (t *analyzer) imageCall(tr trace, call *ast.CallExpr, name string, why token.Pos) bool {
	if !t.imageCtor(call) {
		return false
	}
	if t.keepPrivate(tr, call, name, why) {
		return true // the iteration's own image, or refused
	}
	typ := imageType(t.info.TypeOf(call))
	if typ == "Paletted" || t.imagesElsewhere() != "" {
		return false // (a palette's colors are interface values: not in the arena)
	}
	t.place.ctors[call] = name
	if st, ok := t.info.TypeOf(call).(*types.Pointer).Elem().Underlying().(*types.Struct); ok {
		for _, f := range structFields(st) {
			if f.Name() == "Pix" {
				t.imagePixels(tr, f, name, why)
			}
		}
	}
	return true
}
