package launch

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// outputs multiplexes the nodes' output onto the job's stdout and stderr.
type outputs struct {
	s       Spec
	mu      sync.Mutex // serialises writes to s.Stdout and s.Stderr from prefixed writers
	ws      []*prefixWriter
	copiers sync.WaitGroup // the goroutines copying from the pipes of pipe
}

// pipe returns the file a local node writes the output w gets: w itself
// if it is a file, nil (the null device) if w discards it, else the write
// end of a pipe whose bytes a goroutine copies to w until every writer has
// closed it. The caller closes the write end once the node has started.
// A node's own process then ends, for exec's Wait, when it exits: a
// process it leaves behind holding the descriptors (its page helper) keeps
// the copy going, not the wait.
func (o *outputs) pipe(w io.Writer) (f *os.File, created bool, err error) {
	switch x := w.(type) {
	case nil:
		return nil, false, nil
	case *os.File:
		return x, false, nil
	}
	if w == io.Discard {
		return nil, false, nil
	}
	r, wf, err := os.Pipe()
	if err != nil {
		return nil, false, fmt.Errorf("output pipe: %w", err)
	}
	o.copiers.Add(1)
	go func() {
		defer o.copiers.Done()
		_, _ = io.Copy(w, r)
		r.Close()
	}()
	return wf, true, nil
}

// drain waits until the pipes' copies have ended, or for at most limit:
// a node's helper may outlive the job a moment.
func (o *outputs) drain(limit time.Duration) {
	done := make(chan struct{})
	go func() { o.copiers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
	}
}

func newOutputs(s Spec) *outputs { return &outputs{s: s} }

// forRank returns the stdout and stderr writers of a node.
func (o *outputs) forRank(rank int) (stdout, stderr io.Writer) {
	return o.forNode(rank, fmt.Sprintf("[node %d] ", rank))
}

// forNode returns the stdout and stderr writers of a node whose lines are
// prefixed with prefix (the master's are not prefixed).
func (o *outputs) forNode(rank int, prefix string) (stdout, stderr io.Writer) {
	if rank == 0 {
		return o.locked(o.s.Stdout), o.locked(o.s.Stderr)
	}
	errw := &prefixWriter{mu: &o.mu, w: o.s.Stderr, prefix: prefix}
	o.ws = append(o.ws, errw)
	if !o.s.SlaveStdout {
		return io.Discard, errw
	}
	outw := &prefixWriter{mu: &o.mu, w: o.s.Stdout, prefix: prefix}
	o.ws = append(o.ws, outw)
	return outw, errw
}

func (o *outputs) flush() {
	for _, w := range o.ws {
		w.flush()
	}
}

// locked returns w for the master: as it is if it is a file (the master
// writes to it directly, each write whole), else behind the lock of the
// slaves' lines, since exec then copies each node's output to w from a
// goroutine of its own (a bytes.Buffer would be written concurrently).
func (o *outputs) locked(w io.Writer) io.Writer {
	if _, ok := w.(*os.File); ok || w == nil {
		return w
	}
	return &lockedWriter{mu: &o.mu, w: w}
}

// lockedWriter serialises the master's writes with the slaves' lines.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// prefixWriter writes whole lines, each preceded by prefix. It is safe for
// concurrent use.
type prefixWriter struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix string
	part   []byte // an unterminated last line
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.part = append(p.part, b...)
			break
		}
		line := append(append([]byte(p.prefix), p.part...), b[:i+1]...)
		p.part = p.part[:0]
		if _, err := p.w.Write(line); err != nil {
			return n - len(b), err
		}
		b = b[i+1:]
	}
	return n, nil
}

func (p *prefixWriter) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.part) > 0 {
		_, _ = p.w.Write(append(append([]byte(p.prefix), p.part...), '\n'))
		p.part = nil
	}
}
