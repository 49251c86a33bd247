//go:build linux

package durable

import (
	"encoding/binary"
	"os"
	"unsafe"
)

// Unpopulated reports, per page of mem, whether the page was never
// populated (/proc/self/pagemap: neither present nor swapped), so that it
// reads as zero; nil when pagemap cannot be read (every page is then read).
func Unpopulated(mem []byte, pageSize int) []bool {
	if len(mem) == 0 || pageSize != os.Getpagesize() {
		return nil
	}
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return nil
	}
	defer f.Close()
	pages := (len(mem) + pageSize - 1) / pageSize
	buf := make([]byte, 8*pages)
	first := uintptr(unsafe.Pointer(unsafe.SliceData(mem))) / uintptr(pageSize)
	if n, err := f.ReadAt(buf, int64(first)*8); err != nil || n != len(buf) {
		return nil
	}
	zero := make([]bool, pages)
	for p := range zero {
		e := binary.LittleEndian.Uint64(buf[8*p:])
		zero[p] = e&(1<<63|1<<62) == 0 // PM_PRESENT, PM_SWAP (Documentation/admin-guide/mm/pagemap.rst)
	}
	return zero
}
