//go:build linux

package uffd

import (
	"testing"
	"unsafe"
)

func TestCopyLayout(t *testing.T) {
	if got := unsafe.Sizeof(CopyArg{}); got != 40 {
		t.Errorf("sizeof(struct uffdio_copy) = %d, want 40", got)
	}
	if got := unsafe.Sizeof(Msg{}); got != MsgSize {
		t.Errorf("sizeof(struct uffd_msg) = %d, want %d", got, MsgSize)
	}
	if off := unsafe.Offsetof(Msg{}.Address); off != 16 {
		t.Errorf("offsetof(uffd_msg.arg.pagefault.address) = %d, want 16", off)
	}
	if want := ioc(iocRead|iocWrite, 0xAA, IoctlBitCopy, unsafe.Sizeof(CopyArg{})); ioctlCopy != want {
		t.Errorf("UFFDIO_COPY = %#x, want %#x", ioctlCopy, want)
	}
	if want := ioc(iocRead, 0xAA, IoctlBitWake, unsafe.Sizeof(Range{})); ioctlWake != want {
		t.Errorf("UFFDIO_WAKE = %#x, want %#x", ioctlWake, want)
	}
}
