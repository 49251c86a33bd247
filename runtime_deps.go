package capesrc

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// DepsDir is the directory of Files that holds the runtime's third-party
// dependencies: the files of the packages the runtime imports from other
// modules (for the platforms in Manifest's platforms line, tests left out),
// each module's license, and ManifestName.
const DepsDir = "_runtimedeps"

// ManifestName is the manifest of DepsDir: a "platforms" line naming the
// GOOS/GOARCH pairs whose files are shipped, then for each module a
// "module PATH VERSION" line followed by the module's file hashes exactly
// as the go command's h1: hash sums them ("HEX  PATH@VERSION/FILE", every
// file of the module zip), so that the manifest checks against go.sum and
// each shipped file checks against the manifest.
const ManifestName = "modules.txt"

// DepPrefix is the import path prefix under which a self-contained runtime
// holds its dependencies: golang.org/x/sys/unix becomes
// DepPrefix + "golang.org/x/sys/unix".
const DepPrefix = ModulePath + "/internal/dep/"

// ErrDepsMismatch is returned when the dependencies carried in Files do not
// match the runtime's go.mod and go.sum.
var ErrDepsMismatch = errors.New("the runtime's carried dependencies do not match its go.sum")

// A depModule is one module of the manifest.
type depModule struct {
	path, version string
	hashes        map[string]string // file name (PATH@VERSION/FILE) → hex SHA-256
	lines         []string          // the hash lines as the manifest has them
}

// manifest is the parsed ManifestName.
type manifest struct {
	platforms []string
	modules   []*depModule
}

// readManifest reads the manifest of fsys (laid out as Files).
func readManifest(fsys fs.FS) (*manifest, error) {
	b, err := fs.ReadFile(fsys, DepsDir+"/"+ManifestName)
	if err != nil {
		return nil, fmt.Errorf("read the dependencies' manifest: %w", err)
	}
	m := &manifest{}
	var cur *depModule
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		f := strings.Fields(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case f[0] == "platforms":
			m.platforms = f[1:]
		case f[0] == "module" && len(f) == 3:
			cur = &depModule{path: f[1], version: f[2], hashes: map[string]string{}}
			m.modules = append(m.modules, cur)
		case len(f) == 2 && cur != nil && strings.HasPrefix(f[1], cur.path+"@"+cur.version+"/"):
			cur.hashes[f[1]] = f[0]
			cur.lines = append(cur.lines, line)
		default:
			return nil, fmt.Errorf("%w: %s line %d: %q", ErrDepsMismatch, ManifestName, n, line)
		}
	}
	return m, nil
}

// Platforms returns the GOOS/GOARCH pairs (as "linux/amd64") whose files
// of the runtime's dependencies Files carries.
func Platforms() ([]string, error) {
	m, err := readManifest(Files)
	if err != nil {
		return nil, err
	}
	return m.platforms, nil
}

// SelfContained returns the runtime module's files (slash-separated paths,
// tests left out) as a module that needs nothing but the standard library:
// the carried dependencies are checked against go.sum (ErrDepsMismatch),
// placed under DepPrefix, and every import of them, in the runtime and in
// themselves, rewritten to that path; go.mod requires nothing. It serves
// the platforms that Platforms lists.
func SelfContained() (map[string][]byte, error) { return selfContained(Files) }

// selfContained is SelfContained reading fsys (laid out as Files).
func selfContained(fsys fs.FS) (map[string][]byte, error) {
	m, err := readManifest(fsys)
	if err != nil {
		return nil, err
	}
	if err := m.verify(fsys); err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "_test.go") || p == "go.sum" {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		dst := p
		if rel, ok := strings.CutPrefix(p, DepsDir+"/"); ok {
			if rel == ManifestName {
				return nil
			}
			dst = "internal/dep/" + rel
		}
		if p == "go.mod" {
			b = []byte("module " + ModulePath + "\n\ngo " + goLine(b) + "\n")
		} else if strings.HasSuffix(p, ".go") {
			if b, err = m.rewriteImports(p, b); err != nil {
				return err
			}
		}
		files[dst] = b
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("assemble the runtime's source: %w", err)
	}
	return files, nil
}

// verify checks each module's hash lines against its go.sum line and each
// carried file against its module's hash lines, and that the modules are
// the versions go.mod requires.
func (m *manifest) verify(fsys fs.FS) error {
	sum, err := fs.ReadFile(fsys, "go.sum")
	if err != nil {
		return fmt.Errorf("read the runtime's go.sum: %w", err)
	}
	mod, err := fs.ReadFile(fsys, "go.mod")
	if err != nil {
		return fmt.Errorf("read the runtime's go.mod: %w", err)
	}
	for _, dm := range m.modules {
		if !requires(mod, dm.path, dm.version) {
			return fmt.Errorf("%w: go.mod does not require %s %s", ErrDepsMismatch, dm.path, dm.version)
		}
		want := dm.path + " " + dm.version + " " + dm.h1()
		if !slices.Contains(strings.Split(string(sum), "\n"), want) {
			return fmt.Errorf("%w: %s %s hashes to %s, which go.sum does not list", ErrDepsMismatch, dm.path, dm.version, dm.h1())
		}
	}
	return fs.WalkDir(fsys, DepsDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == DepsDir+"/"+ManifestName {
			return err
		}
		rel := strings.TrimPrefix(p, DepsDir+"/")
		dm := m.moduleOf(rel)
		if dm == nil {
			return fmt.Errorf("%w: %s belongs to no module of the manifest", ErrDepsMismatch, p)
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		name := dm.path + "@" + dm.version + strings.TrimPrefix(rel, dm.path)
		if got := fmt.Sprintf("%x", sha256.Sum256(b)); dm.hashes[name] != got {
			return fmt.Errorf("%w: %s has SHA-256 %s, the module's hash lists %q", ErrDepsMismatch, p, got, dm.hashes[name])
		}
		return nil
	})
}

// h1 is the go command's h1: hash of the module: the SHA-256 of its hash
// lines sorted by file name, in base64.
func (dm *depModule) h1() string {
	lines := slices.Clone(dm.lines)
	slices.SortFunc(lines, func(a, b string) int {
		return strings.Compare(strings.Fields(a)[1], strings.Fields(b)[1])
	})
	h := sha256.New()
	for _, l := range lines {
		fmt.Fprintf(h, "%s\n", l)
	}
	return "h1:" + base64.StdEncoding.EncodeToString(h.Sum(nil))
}

// moduleOf returns the module holding the package path p, or nil.
func (m *manifest) moduleOf(p string) *depModule {
	var best *depModule
	for _, dm := range m.modules {
		if (p == dm.path || strings.HasPrefix(p, dm.path+"/")) && (best == nil || len(dm.path) > len(best.path)) {
			best = dm
		}
	}
	return best
}

// rewriteImports returns src with each import of a carried module's
// package prefixed by DepPrefix. Only import paths change: the edit
// replaces the import spec's string literal in place.
func (m *manifest) rewriteImports(name string, src []byte) ([]byte, error) {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("rewrite imports: %w", err)
	}
	out := src
	for i := len(f.Imports) - 1; i >= 0; i-- {
		spec := f.Imports[i]
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil || m.moduleOf(p) == nil {
			continue
		}
		lo, hi := int(spec.Path.Pos())-1, int(spec.Path.End())-1
		out = slices.Concat(out[:lo:lo], []byte(strconv.Quote(DepPrefix+p)), out[hi:])
	}
	return out, nil
}

// GoVersion returns the version of the go line of the runtime's go.mod.
func GoVersion() string {
	b, _ := Files.ReadFile("go.mod")
	return goLine(b)
}

// goLine returns the version of go.mod's go line.
func goLine(mod []byte) string {
	for _, line := range strings.Split(string(mod), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "go "); ok {
			return strings.TrimSpace(v)
		}
	}
	return "1.26"
}

// ShipsPlatform reports whether Files carries the dependencies' files for
// goos/goarch.
func ShipsPlatform(goos, goarch string) bool {
	ps, err := Platforms()
	return err == nil && slices.Contains(ps, goos+"/"+goarch)
}

// requires reports whether go.mod mod requires path at version.
func requires(mod []byte, path, version string) bool {
	for _, line := range strings.Split(string(mod), "\n") {
		line, _, _ = strings.Cut(line, "//")
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == "require" {
			f = f[1:]
		}
		if len(f) == 2 && f[0] == path && f[1] == version {
			return true
		}
	}
	return false
}
