package durable

import (
	"bytes"
	"testing"

	"github.com/cape-go/cape/internal/ckptlog"
)

// FuzzMessages checks that the replay and image messages a slave parses
// either are refused or re-encode to the bytes received.
func FuzzMessages(f *testing.F) {
	f.Add(AppendReplay(nil, 5, nil), 0)
	f.Add(AppendReplay(nil, 5, &Pending{Point: "main.go:1:2", Seq: 3}), 2)
	f.Add(AppendImageMessage(nil, &ckptlog.Image{Seq: 2, Vars: []byte{1, 2}, Memory: []byte{3}}), 2)
	f.Add([]byte{1, 2, 3}, -1)
	f.Fuzz(func(t *testing.T, b []byte, varsLen int) {
		if n, p, err := ParseReplay(b); err == nil && !bytes.Equal(AppendReplay(nil, n, p), b) {
			t.Fatalf("replay message %x re-encodes as %x", b, AppendReplay(nil, n, p))
		}
		if varsLen < 0 {
			return
		}
		if im, err := ParseImageMessage(b, varsLen); err == nil {
			if len(im.Vars) != varsLen || !bytes.Equal(AppendImageMessage(nil, im), b) {
				t.Fatalf("image message %x with %d bytes of variables: %+v", b, varsLen, im)
			}
		}
	})
}
