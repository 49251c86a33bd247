package uffd

// Definitions from include/uapi/linux/userfaultfd.h for resolving missing
// faults (lazy pages): UFFDIO_COPY, UFFDIO_WAKE and the fault messages
// read from the descriptor.

// Ioctl numbers of the fault-resolving ioctls (_UFFDIO_*), as bit positions
// of Register.Ioctls.
const (
	IoctlBitWake = 0x02 // _UFFDIO_WAKE
	IoctlBitCopy = 0x03 // _UFFDIO_COPY
)

// Ioctl request codes, _IOR/_IOWR(UFFDIO = 0xAA, _UFFDIO_*, struct).
const (
	ioctlWake = 0x8010AA02 // UFFDIO_WAKE: _IOR(0xAA, 0x02, struct uffdio_range)
	ioctlCopy = 0xC028AA03 // UFFDIO_COPY: _IOWR(0xAA, 0x03, struct uffdio_copy)
)

// Copy modes (UFFDIO_COPY_MODE_*).
const (
	CopyModeDontWake = 1 << 0 // UFFDIO_COPY_MODE_DONTWAKE
	CopyModeWP       = 1 << 1 // UFFDIO_COPY_MODE_WP: install the page write-protected
)

// CopyArg is struct uffdio_copy.
type CopyArg struct {
	Dst  uint64 // page-aligned address in the registered range
	Src  uint64 // address of the content in the calling process
	Len  uint64 // a multiple of the page size
	Mode uint64 // CopyMode*
	Copy int64  // out: bytes copied, or a negated errno
}

// EventPagefault is UFFD_EVENT_PAGEFAULT, the event of a Msg reporting a
// fault.
const EventPagefault = 0x12

// Flags of a page-fault message (UFFD_PAGEFAULT_FLAG_*).
const (
	PagefaultFlagWrite = 1 << 0 // UFFD_PAGEFAULT_FLAG_WRITE
	PagefaultFlagWP    = 1 << 1 // UFFD_PAGEFAULT_FLAG_WP
)

// MsgSize is sizeof(struct uffd_msg).
const MsgSize = 32

// Msg is the part of struct uffd_msg that a page-fault event fills in:
// event u8, three reserved bytes, a reserved u32, then the pagefault arm of
// the union (flags u64, address u64, ptid u32) padded to 24 bytes.
type Msg struct {
	Event   uint8
	_       [3]uint8
	_       uint32
	Flags   uint64 // PagefaultFlag*
	Address uint64 // the faulting address (not page-aligned)
	PTID    uint32 // the faulting thread, with UFFD_FEATURE_THREAD_ID
	_       uint32
}
