package gocmd

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// digestVar is the runtime's variable that holds the program's digest,
// which its checkpoint log records so that a restart refuses a log that
// another build of the program wrote.
const digestVar = "github.com/cape-go/cape/cape.programDigest"

// programDigest hashes what the program is built from: the Go files, go.mod
// and go.sum of the module that holds the package directory dir (tests,
// testdata, vendor and nested modules left out), with the translation in
// place of each file replace names.
func programDigest(dir string, replace map[string]string) (string, error) {
	root, ok := ModuleRoot(dir)
	if !ok {
		root = dir // no module: the package alone
	}
	files, err := moduleFiles(root, func(p string) bool {
		base := filepath.Base(p)
		return strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") || base == "go.mod" || base == "go.sum"
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	h := sha256.New()
	for _, p := range files {
		src := p
		if r, ok := replace[p]; ok {
			src = r
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(root, p)
		h.Write([]byte(rel))
		h.Write([]byte{0})
		h.Write(b)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ModuleRoot returns the directory of the module that holds the directory
// dir: the nearest one at or above it with a go.mod file; ok is false
// outside any module.
func ModuleRoot(dir string) (root string, ok bool) {
	for root = dir; ; {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			return root, true
		}
		parent := filepath.Dir(root)
		if parent == root {
			return "", false
		}
		root = parent
	}
}
