package cape

import (
	"errors"
	"io"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/cape-go/cape/transport"
)

// TestStdinCutKeepsPipeOpen cuts a slave's stream after one chunk, with
// the program's input a real pipe that only the queue refers to: after
// the garbage collector has run, the program still reads the chunk and
// then waits, never an end of input (an unreferenced *os.File is closed
// by the collector, which the program would take for the end of its
// input and compute on a short input).
func TestStdinCutKeepsPipeOpen(t *testing.T) {
	failed := make(chan error, 1)
	r, q := startPipeQueue(t, &fakeStdinConn{
		msgs: []transport.Message{{Kind: kindStdinData, Seq: 0, Payload: []byte("12\n34\n")}},
		err:  transport.ErrConnLost,
	}, func(err error) { failed <- err })
	defer r.Close()
	select {
	case err := <-failed:
		if !errors.Is(err, transport.ErrConnLost) {
			t.Fatalf("the stream failed with %v, want ErrConnLost", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cut stream was not reported")
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

// startPipeQueue starts a slave's queue on conn feeding a new pipe, and
// returns the pipe's read end (the program's input) and the queue; the
// write end is referred to by the queue only.
func startPipeQueue(t *testing.T, conn stdinConn, fail func(error)) (*os.File, *stdinQueue) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	q := newStdinQueue(conn, 1<<20, fail)
	q.start(w)
	return r, q
}
