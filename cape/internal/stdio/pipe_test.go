package stdio

import (
	"errors"
	"io"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/cape-go/cape/transport"
)

// TestCutKeepsPipeOpen cuts a slave's stream after one chunk, with the
// program's input a real pipe that only the queue refers to: after the
// garbage collector has run, the program still reads the chunk and then
// waits, never an end of input (an unreferenced *os.File is closed by the
// collector, which the program would take for the end of its input and
// compute on a short input).
func TestCutKeepsPipeOpen(t *testing.T) {
	failed := make(chan error, 1)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	q := NewQueue(&fakeConn{
		msgs: []transport.Message{{Kind: KindData, Seq: 0, Payload: []byte("12\n34\n")}},
		err:  transport.ErrConnLost,
	}, 1<<20, func(err error) { failed <- err })
	q.Start(w)
	w = nil // the queue alone refers to the write end
	err = wait(t, failed, 10*time.Second, "report of the cut stream")
	if !errors.Is(err, transport.ErrConnLost) {
		t.Fatalf("the stream failed with %v, want ErrConnLost", err)
	}
	for range 5 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	buf := make([]byte, 64)
	n, err := io.ReadAtLeast(r, buf, 6)
	if err != nil || string(buf[:n]) != "12\n34\n" {
		t.Fatalf("the program read %q, %v; want the chunk", buf[:n], err)
	}
	if err := r.SetReadDeadline(time.Now().Add(200 * time.Millisecond)); err != nil {
		t.Fatalf("set a deadline on the pipe: %v", err)
	}
	n, err = r.Read(buf)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("after the cut the program read %d bytes, %v; want it still waiting (no end of input)", n, err)
	}
	runtime.KeepAlive(q)
}
