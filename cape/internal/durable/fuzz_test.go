package durable

import (
	"bytes"
	"testing"
)

// FuzzMessages checks that the replay messages a slave parses either are
// refused or re-encode to the bytes received (wire's FuzzImage does the
// image messages).
func FuzzMessages(f *testing.F) {
	f.Add(AppendReplay(nil, 5, nil))
	f.Add(AppendReplay(nil, 5, &Pending{Point: "main.go:1:2", Seq: 3}))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, p, err := ParseReplay(b); err == nil && !bytes.Equal(AppendReplay(nil, n, p), b) {
			t.Fatalf("replay message %x re-encodes as %x", b, AppendReplay(nil, n, p))
		}
	})
}
