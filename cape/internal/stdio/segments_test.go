package stdio

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// segs encodes the segments lo:text of one node's piece.
func segs(parts ...any) []byte {
	var p []byte
	for i := 0; i < len(parts); i += 2 {
		p = AppendSegment(p, parts[i].(int), []byte(parts[i+1].(string)))
	}
	return p
}

// TestAppendSegment checks the segment's encoding to the byte.
func TestAppendSegment(t *testing.T) {
	got := AppendSegment([]byte{0xee}, -1, []byte("hi"))
	want := []byte{0xee, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 'h', 'i'}
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendSegment = %x, want %x", got, want)
	}
	got = AppendSegment(nil, 258, nil)
	if want := []byte{2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}; !bytes.Equal(got, want) {
		t.Fatalf("AppendSegment(258, empty) = %x, want %x", got, want)
	}
}

// TestWriteOrdered checks that the master writes the nodes' unit outputs
// in iteration order whatever the nodes that ran them (a unit printed by
// two nodes in rank order, a node's units in the order written), and that
// the logged piece prints the same again.
func TestWriteOrdered(t *testing.T) {
	for _, tc := range []struct {
		name string
		outs [][]byte
		want string
	}{
		{"none", nil, ""},
		{"all empty", [][]byte{nil, nil, nil}, ""},
		{"master only", [][]byte{segs(-1, "before ", 0, "u0")}, "before u0"},
		{"interleaved", [][]byte{segs(-1, "before ", 0, "u0 ", 9, "u9 "), segs(6, "u6a ", 3, "u3 "), nil, segs(12, "u12\n")},
			"before u0 u3 u6a u9 u12\n"},
		{"same unit on two nodes", [][]byte{segs(4, "m"), segs(4, "a"), segs(4, "b", 1, "x")}, "xmab"},
		{"a unit twice on one node", [][]byte{nil, segs(5, "first ", 2, "two ", 5, "second")}, "two first second"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			piece, err := WriteOrdered(&out, tc.outs)
			if err != nil || out.String() != tc.want {
				t.Fatalf("WriteOrdered wrote %q, %v; want %q", out.String(), err, tc.want)
			}
			if tc.want == "" && piece != nil {
				t.Fatalf("WriteOrdered of no output logs %x", piece)
			}
			var again bytes.Buffer
			if err := WriteLogged(&again, piece); err != nil || again.String() != tc.want {
				t.Fatalf("the logged piece prints %q, %v; want %q", again.String(), err, tc.want)
			}
			if back, err := WriteOrdered(&bytes.Buffer{}, [][]byte{piece}); err != nil || !bytes.Equal(back, piece) {
				t.Fatalf("the logged piece orders to %x, %v; want itself", back, err)
			}
		})
	}
}

// TestParseSegmentsRefuses checks that a malformed piece is refused with
// the node named, and that nothing of it is written.
func TestParseSegmentsRefuses(t *testing.T) {
	good := segs(3, "abc")
	below := AppendSegment(nil, -2, []byte("x"))
	long := append(segs(0, "ok"), AppendSegment(nil, 1, []byte("abcd"))[:15]...)
	for _, tc := range []struct {
		name, want string
		p          []byte
	}{
		{"short header", "output of node 2: truncated segment header", good[:11]},
		{"trailing byte", "output of node 2: truncated segment header", append(append([]byte{}, good...), 0)},
		{"count beyond", "output of node 2: segment of 3 bytes exceeds the 2 left", good[:14]},
		{"second count beyond", "output of node 2: segment of 4 bytes exceeds the 3 left", long},
		{"unit below -1", "output of node 2: segment of unit -2", below},
		{"huge count", "output of node 2: segment of 4294967295 bytes exceeds the 0 left", []byte{0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseSegments(nil, tc.p, 2); err == nil || err.Error() != tc.want {
				t.Fatalf("ParseSegments = %v, want %q", err, tc.want)
			}
			var out bytes.Buffer
			outs := [][]byte{segs(0, "master "), nil, tc.p}
			if piece, err := WriteOrdered(&out, outs); err == nil || piece != nil || out.Len() != 0 {
				t.Fatalf("WriteOrdered of a malformed piece wrote %q, logs %x, %v", out.String(), piece, err)
			}
			if err := WriteLogged(&out, tc.p); err == nil || out.Len() != 0 {
				t.Fatalf("WriteLogged of a malformed piece wrote %q, %v", out.String(), err)
			}
		})
	}
}

// failWriter fails every write.
type failWriter struct{}

var errFull = errors.New("no space left on device")

func (failWriter) Write([]byte) (int, error) { return 0, errFull }

// TestWriteFails checks that a failed write of the output is an error
// saying so, wrapping the cause.
func TestWriteFails(t *testing.T) {
	p := segs(0, "x")
	if _, err := WriteOrdered(failWriter{}, [][]byte{p}); !errors.Is(err, errFull) || !strings.HasPrefix(err.Error(), "write the region's output: ") {
		t.Fatalf("WriteOrdered = %v", err)
	}
	if err := WriteLogged(failWriter{}, p); !errors.Is(err, errFull) || !strings.HasPrefix(err.Error(), "write the region's output: ") {
		t.Fatalf("WriteLogged = %v", err)
	}
}

// FuzzParseSegments checks the output codec on a peer's bytes: parsing
// never panics, and what it accepts encodes back to the input.
func FuzzParseSegments(f *testing.F) {
	f.Add(segs(-1, "a", 7, "bc"))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, p []byte) {
		segs, err := ParseSegments(nil, p, 1)
		if err != nil {
			return
		}
		var out []byte
		for _, s := range segs {
			if s.Lo < -1 || s.Rank != 1 {
				t.Fatalf("accepted unit %d of node %d", s.Lo, s.Rank)
			}
			out = AppendSegment(out, int(s.Lo), s.B)
		}
		if !bytes.Equal(out, p) {
			t.Fatalf("ParseSegments(%x) encodes back to %x", p, out)
		}
	})
}
