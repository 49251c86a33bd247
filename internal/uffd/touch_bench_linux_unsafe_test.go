//go:build linux

package uffd

import (
	"testing"
	"unsafe"

	"github.com/cape-go/cape/internal/pagemem"
	"golang.org/x/sys/unix"
)

// The benchmarks below measure what a node pays, per page, to touch
// memory for the first time and to write memory that the uffd monitor has
// write-protected: the costs that decide how the monitor should treat
// memory a program has not used yet. Each reports ns/page and faults/page
// (pagemem.Faults, which also counts the pages a MADV_POPULATE_WRITE
// call faults in without an exception).
//
//	go test ./internal/uffd -run - -bench Touch -benchtime 20x

// touchPages is how many pages each benchmark operation touches.
const touchPages = 1024

var touchSink byte

// benchTouch runs op on fresh anonymous mappings of touchPages pages,
// each set up by prep (untimed; what it returns is called once the mapping
// is gone), and reports the cost per page.
func benchTouch(b *testing.B, prep func(b *testing.B, mem []byte) func(), op func(mem []byte)) {
	ps := unix.Getpagesize()
	var faults int64
	for b.Loop() {
		b.StopTimer()
		mem, err := unix.Mmap(-1, 0, touchPages*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			b.Fatal(err)
		}
		done := func() {}
		if prep != nil {
			done = prep(b, mem)
		}
		f := pagemem.Faults(false)
		b.StartTimer()
		op(mem)
		b.StopTimer()
		faults += pagemem.Faults(false) - f
		if err := unix.Munmap(mem); err != nil {
			b.Fatal(err)
		}
		done()
		b.StartTimer()
	}
	pages := float64(b.N) * touchPages
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/pages, "ns/page")
	b.ReportMetric(float64(faults)/pages, "faults/page")
	b.ReportMetric(0, "ns/op")
}

func readEach(mem []byte) {
	ps := unix.Getpagesize()
	var s byte
	for p := 0; p < len(mem); p += ps {
		s += mem[p]
	}
	touchSink = s
}

func writeEach(mem []byte) {
	ps := unix.Getpagesize()
	for p := 0; p < len(mem); p += ps {
		mem[p] = 1
	}
}

// protect registers mem with a userfaultfd in the monitor's mode
// (asynchronous write-protection, unpopulated pages marked) and
// write-protects it. It returns what closes the descriptor.
func protect(b *testing.B, mem []byte) func() {
	fd, err := Open(UserModeOnly | unix.O_CLOEXEC | unix.O_NONBLOCK)
	if err != nil {
		b.Skipf("userfaultfd: %v (needs vm.unprivileged_userfaultfd=1 or CAP_SYS_PTRACE)", err)
	}
	done := func() { unix.Close(fd) }
	a := API{API: APIVersion, Features: FeatureWPAsync | FeatureWPUnpopulated}
	if err := Handshake(fd, &a); err != nil {
		done()
		b.Skipf("%v (UFFD_FEATURE_WP_ASYNC|WP_UNPOPULATED need Linux 6.7)", err)
	}
	r := Range{Start: uint64(uintptr(unsafe.Pointer(unsafe.SliceData(mem)))), Len: uint64(len(mem))}
	if err := RegisterRange(fd, &Register{Range: r, Mode: RegisterModeWP}); err != nil {
		b.Fatal(err)
	}
	if err := SetWriteProtect(fd, &WriteProtect{Range: r, Mode: WriteProtectModeWP}); err != nil {
		b.Fatal(err)
	}
	return done
}

// BenchmarkTouchFirstWrite: a write fault on a page never touched.
func BenchmarkTouchFirstWrite(b *testing.B) { benchTouch(b, nil, writeEach) }

// BenchmarkTouchFirstRead: a read fault on a page never touched.
func BenchmarkTouchFirstRead(b *testing.B) { benchTouch(b, nil, readEach) }

// BenchmarkTouchPopulate: pagemem.Populate (MADV_POPULATE_WRITE) of pages
// never touched, no access.
func BenchmarkTouchPopulate(b *testing.B) { benchTouch(b, nil, pagemem.Populate) }

// BenchmarkTouchPopulateThenRead: the same, then a first read of each
// page; on a machine that fills shadow page tables lazily (a
// paravirtualized guest), the read still costs.
func BenchmarkTouchPopulateThenRead(b *testing.B) {
	benchTouch(b, nil, func(mem []byte) {
		pagemem.Populate(mem)
		readEach(mem)
	})
}

// BenchmarkTouchMarkedWrite: a write to a page never touched but
// write-protected (a marker): the monitor's cold memory a program writes
// for the first time.
func BenchmarkTouchMarkedWrite(b *testing.B) { benchTouch(b, protect, writeEach) }

// BenchmarkTouchMarkedRead: a read of such a page.
func BenchmarkTouchMarkedRead(b *testing.B) { benchTouch(b, protect, readEach) }

// BenchmarkTouchProtectedWrite: a write to a page in memory and
// write-protected: a write to a cold chunk.
func BenchmarkTouchProtectedWrite(b *testing.B) {
	benchTouch(b, func(b *testing.B, mem []byte) func() {
		writeEach(mem)
		return protect(b, mem)
	}, writeEach)
}
