package main

import (
	"bytes"
	"expvar"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"strconv"
)

// Another package's constructors are the iteration's own memory only when
// they are handed nothing that refers to other memory.

func main() {
	const n = 16
	shared := rand.NewPCG(1, 2) // want "shared is written through in the parallel region at err_fresh.go:[0-9]+, but its memory comes from a call of rand.NewPCG \\(another package.s function\\) here"
	buf := make([]byte, 0, 64)
	out := make([]uint64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		own := rand.New(rand.NewPCG(uint64(i), 3))
		wrapped := rand.New(shared)              // want "wrapped is written through in the parallel region at err_fresh.go:[0-9]+, but its memory comes from a call of [a-zA-Z.]+ \\(another package's function\\) here"
		w := bytes.NewBuffer(buf)                // want "w is written through in the parallel region at err_fresh.go:[0-9]+, but its memory comes from a call of [a-zA-Z.]+ \\(another package's function\\) here"
		w.WriteByte(byte(i))                     // want "bytes.Buffer.WriteByte may write through the slices or pointers that w holds"
		reg := expvar.NewInt("n")                // want "reg is written through in the parallel region at err_fresh.go:[0-9]+, but its memory comes from a call of [a-zA-Z.]+ \\(another package's function\\) here"
		reg.Add(1)                               // want "expvar.Int.Add may write through the slices or pointers that reg holds"
		lg := log.Default()                      // want "lg is written through in the parallel region at err_fresh.go:[0-9]+, but its memory comes from a call of [a-zA-Z.]+ \\(another package's function\\) here"
		lg.SetPrefix("x")                        // want "log.Logger.SetPrefix may write through the slices or pointers that lg holds"
		out[i] = own.Uint64() + wrapped.Uint64() // want "rand.Rand.Uint64 may write through the slices or pointers that wrapped holds"
	}
	fmt.Println(out)
}

// appendAfterAppendf: a buffer of the iteration's, grown by fmt.Appendf
// and then by append, is the iteration's own memory.
func appendAfterAppendf(n int) []int {
	lens := make([]int, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		var buf []byte
		buf = fmt.Appendf(buf, "%d", i*i)
		buf = append(buf, ":"...)
		buf = strconv.AppendInt(buf, int64(i), 10)
		lens[i] = len(buf) + int(buf[0])
	}
	return lens
}

// loadChunks: a file a function the region calls opens is that call's
// own, read into the slice it is handed and closed.
func loadChunks(name string, n, chunk int) []byte {
	buf := make([]byte, n*chunk)
	//cape:parallel for
	for i := 0; i < n; i++ {
		_ = loadChunk(name, buf[i*chunk:(i+1)*chunk], int64(i*chunk))
	}
	return buf
}

func loadChunk(name string, dst []byte, off int64) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.ReadAt(dst, off)
	return err
}
