package cape

import (
	"bytes"
	"os"
	"testing"
)

// TestOrderOutput checks that the master writes the nodes' unit outputs in
// iteration order whatever the nodes that ran them, a unit's bytes in the
// order written, and that the logged piece prints the same again.
func TestOrderOutput(t *testing.T) {
	var n0, n1, n2 []byte
	n0 = appendSegment(n0, -1, []byte("before "))
	n0 = appendSegment(n0, 0, []byte("u0 "))
	n0 = appendSegment(n0, 9, []byte("u9 "))
	n1 = appendSegment(n1, 6, []byte("u6a "))
	n1 = appendSegment(n1, 3, []byte("u3 "))
	n2 = appendSegment(n2, 12, []byte("u12\n"))
	text, piece := capture(t, func() ([]byte, error) { return orderOutput([][]byte{n0, n1, nil, n2}) })
	if want := "before u0 u3 u6a u9 u12\n"; text != want {
		t.Fatalf("orderOutput wrote %q, want %q", text, want)
	}
	again, _ := capture(t, func() ([]byte, error) { return nil, printLogged(piece) })
	if again != text {
		t.Fatalf("the logged piece prints %q, not %q", again, text)
	}
	if _, err := orderOutput([][]byte{n0[:len(n0)-1]}); err == nil {
		t.Fatal("a truncated segment was accepted")
	}
}

// capture runs f with standard output redirected to a pipe and returns what
// it wrote and f's result.
func capture(t *testing.T, f func() ([]byte, error)) (string, []byte) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	res, err := f()
	os.Stdout = old
	w.Close()
	var buf bytes.Buffer
	buf.ReadFrom(r)
	if err != nil {
		t.Fatal(err)
	}
	return buf.String(), res
}

// FuzzParseSegments checks the output codec on a peer's bytes: parsing
// never panics, and what it accepts encodes back to the input.
func FuzzParseSegments(f *testing.F) {
	f.Add(appendSegment(appendSegment(nil, -1, []byte("a")), 7, []byte("bc")))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, p []byte) {
		segs, err := parseSegments(nil, p, 1)
		if err != nil {
			return
		}
		var out []byte
		for _, s := range segs {
			if s.lo < -1 {
				t.Fatalf("accepted unit %d", s.lo)
			}
			out = appendSegment(out, int(s.lo), s.b)
		}
		if !bytes.Equal(out, p) {
			t.Fatalf("parseSegments(%x) encodes back to %x", p, out)
		}
	})
}
