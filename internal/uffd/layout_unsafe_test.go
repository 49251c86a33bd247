//go:build linux

package uffd

import (
	"testing"
	"unsafe"
)

// ioc encodes an ioctl request as include/uapi/asm-generic/ioctl.h does.
func ioc(dir, typ, nr, size uintptr) uintptr { return dir<<30 | size<<16 | typ<<8 | nr }

const (
	iocWrite = 1
	iocRead  = 2
)

func TestLayout(t *testing.T) {
	sizes := []struct {
		name      string
		got, want uintptr
	}{
		{"uffdio_api", unsafe.Sizeof(API{}), 24},
		{"uffdio_range", unsafe.Sizeof(Range{}), 16},
		{"uffdio_register", unsafe.Sizeof(Register{}), 32},
		{"uffdio_writeprotect", unsafe.Sizeof(WriteProtect{}), 24},
		{"page_region", unsafe.Sizeof(PageRegion{}), 24},
		{"pm_scan_arg", unsafe.Sizeof(PMScanArg{}), 96},
	}
	for _, s := range sizes {
		if s.got != s.want {
			t.Errorf("sizeof(struct %s) = %d, want %d", s.name, s.got, s.want)
		}
	}
	codes := []struct {
		name      string
		got, want uintptr
	}{
		{"UFFDIO_API", ioctlAPI, ioc(iocRead|iocWrite, 0xAA, IoctlBitAPI, unsafe.Sizeof(API{}))},
		{"UFFDIO_REGISTER", ioctlRegister, ioc(iocRead|iocWrite, 0xAA, IoctlBitRegister, unsafe.Sizeof(Register{}))},
		{"UFFDIO_UNREGISTER", ioctlUnregister, ioc(iocRead, 0xAA, IoctlBitUnregister, unsafe.Sizeof(Range{}))},
		{"UFFDIO_WRITEPROTECT", ioctlWriteProtect, ioc(iocRead|iocWrite, 0xAA, IoctlBitWriteProtect, unsafe.Sizeof(WriteProtect{}))},
		{"PAGEMAP_SCAN", ioctlPagemapScan, ioc(iocRead|iocWrite, 'f', 16, unsafe.Sizeof(PMScanArg{}))},
	}
	for _, c := range codes {
		if c.got != c.want {
			t.Errorf("%s = %#x, want %#x", c.name, c.got, c.want)
		}
	}
}
