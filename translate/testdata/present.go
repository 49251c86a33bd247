package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
)

type header struct {
	N    int64
	Seed int64
}

type frame struct {
	Rows [][]byte
	Tag  int
}

// A putter's method is unexported: only this package's types implement it,
// so its calls run this package's code.
type putter interface{ put(b []byte) }

type counter struct{ n *int }

func (c counter) put(b []byte) { *c.n += len(b) }

// wrapped reaches bytes.Buffer's pointer methods through an embedded
// pointer, so they can be called on a value that is not addressable.
type wrapped struct{ *bytes.Buffer }

func newWrapped() wrapped { return wrapped{new(bytes.Buffer)} }

// sum is this package's: its calls are not wrapped (the calls it makes are).
func sum(b []byte) int {
	s := 0
	for _, v := range b {
		s += int(v)
	}
	return s
}

// each calls fn: a function value, which may be another package's.
func each(fn func([]byte) (int, error), b []byte) {
	_, _ = fn(b)
}

func main() {
	n := 4096
	buf := make([]byte, 2*n)
	out := make([]byte, 2*n)
	rows := make([][]byte, 2)
	rows[0], rows[1] = buf[:n], out[:n]
	var h header
	f, err := os.Open("/dev/zero")
	if err != nil {
		panic(err)
	}
	if _, err := io.ReadFull(f, buf[:n]); err != nil {
		panic(err)
	}
	if err := binary.Read(f, binary.LittleEndian, &h); err != nil {
		panic(err)
	}
	fd := int(f.Fd())
	//cape:parallel for
	for i := 0; i < 2; i++ {
		if _, err := syscall.Pread(fd, buf[i*n:(i+1)*n], int64(i*n)); err != nil {
			panic(err)
		}
		copy(out[i*n:(i+1)*n], buf[i*n:(i+1)*n])
		out[i*n] = byte(sum(buf[i*n : (i+1)*n]))
	}
	var w io.Writer = os.Stdout
	_, _ = w.Write(out[:1])
	_, _ = syscall.Write(1, out[n:n+1])
	bufs := net.Buffers(rows)
	_, _ = bufs.WriteTo(io.Discard)
	var bb bytes.Buffer
	_, _ = bb.Write(buf[:1])
	each(os.Stdout.Write, out[:1])
	_, _ = newWrapped().Write(out[:1])
	var p putter = counter{n: new(int)}
	p.put(out[:1])
	fr := frame{Rows: rows, Tag: 1}
	fmt.Fprintln(os.Stderr, len(buf), string(buf[:0]), h.N, fr, func() int { return sum(out) }())
	_, _ = os.Stdout.Write(bytes.ToUpper(out[:0]))
}
