//go:build linux

package monitor

import (
	"os"
	"runtime"
	"sync/atomic"
	"testing"
)

// BenchmarkUffdProtectPage measures what a probe or a sample page costs
// to arm: write-protecting one page in memory, a call of its own, and
// unprotecting it again. Each call flushes the page from the TLBs of the
// CPUs running the process: "idle" with no other thread of it running,
// "busy" with one spinning on another CPU, as a node's threads may be
// while it starts a region. One op is one protect and one unprotect; the
// pages differ from op to op, one per chunk as cool's probes are.
func BenchmarkUffdProtectPage(b *testing.B) {
	for _, busy := range []bool{false, true} {
		name := "idle"
		if busy {
			name = "busy"
		}
		b.Run(name, func(b *testing.B) {
			ps := os.Getpagesize()
			mem := mapArena(b, 4096*ps)
			tr := newOrSkip(b, BackendUffd, mem)
			u := tr.(*uffdTracker)
			for p := range len(mem) / ps {
				mem[p*ps] = 1
			}
			var stop atomic.Bool
			done := make(chan struct{})
			if busy {
				go func() {
					runtime.LockOSThread()
					for !stop.Load() {
					}
					close(done)
				}()
			} else {
				close(done)
			}
			i := 0
			for b.Loop() {
				p := probePage(i % (len(mem) / ps / chunkPages))
				i++
				if err := u.writeProtect(p*ps, (p+1)*ps, true); err != nil {
					b.Fatal(err)
				}
				if err := u.writeProtect(p*ps, (p+1)*ps, false); err != nil {
					b.Fatal(err)
				}
			}
			stop.Store(true)
			<-done
		})
	}
}
