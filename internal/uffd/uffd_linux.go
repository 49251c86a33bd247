package uffd

// Definitions from include/uapi/linux/userfaultfd.h (Linux 6.7 and later).

// Flags of the userfaultfd(2) system call.
const (
	// UserModeOnly is UFFD_USER_MODE_ONLY: only faults raised in user mode
	// are handled, which lets unprivileged processes create a userfaultfd
	// even when vm.unprivileged_userfaultfd is 0 (Linux 5.11 and later).
	UserModeOnly = 1
)

// APIVersion is UFFD_API, the only API version the kernel accepts in
// API.API.
const APIVersion = 0xAA

// Feature bits of API.Features (UFFD_FEATURE_*).
const (
	FeaturePagefaultFlagWP  = 1 << 0  // UFFD_FEATURE_PAGEFAULT_FLAG_WP
	FeatureWPHugetlbfsShmem = 1 << 12 // UFFD_FEATURE_WP_HUGETLBFS_SHMEM
	FeatureWPUnpopulated    = 1 << 13 // UFFD_FEATURE_WP_UNPOPULATED (Linux 6.4)
	FeatureWPAsync          = 1 << 15 // UFFD_FEATURE_WP_ASYNC (Linux 6.7)
)

// Register modes (UFFDIO_REGISTER_MODE_*).
const (
	RegisterModeMissing = 1 << 0 // UFFDIO_REGISTER_MODE_MISSING
	RegisterModeWP      = 1 << 1 // UFFDIO_REGISTER_MODE_WP
	RegisterModeMinor   = 1 << 2 // UFFDIO_REGISTER_MODE_MINOR
)

// Write-protect modes (UFFDIO_WRITEPROTECT_MODE_*).
const (
	WriteProtectModeWP       = 1 << 0 // UFFDIO_WRITEPROTECT_MODE_WP
	WriteProtectModeDontWake = 1 << 1 // UFFDIO_WRITEPROTECT_MODE_DONTWAKE
)

// Ioctl numbers (_UFFDIO_*), as bit positions of API.Ioctls and
// Register.Ioctls.
const (
	IoctlBitRegister     = 0x00 // _UFFDIO_REGISTER
	IoctlBitUnregister   = 0x01 // _UFFDIO_UNREGISTER
	IoctlBitWriteProtect = 0x06 // _UFFDIO_WRITEPROTECT
	IoctlBitAPI          = 0x3F // _UFFDIO_API
)

// Ioctl request codes, _IOWR/_IOR(UFFDIO = 0xAA, _UFFDIO_*, struct).
const (
	ioctlAPI          = 0xC018AA3F // UFFDIO_API: _IOWR(0xAA, 0x3F, struct uffdio_api)
	ioctlRegister     = 0xC020AA00 // UFFDIO_REGISTER: _IOWR(0xAA, 0x00, struct uffdio_register)
	ioctlUnregister   = 0x8010AA01 // UFFDIO_UNREGISTER: _IOR(0xAA, 0x01, struct uffdio_range)
	ioctlWriteProtect = 0xC018AA06 // UFFDIO_WRITEPROTECT: _IOWR(0xAA, 0x06, struct uffdio_writeprotect)
)

// API is struct uffdio_api.
type API struct {
	API      uint64 // in: APIVersion
	Features uint64 // in: requested features; out: every available feature
	Ioctls   uint64 // out: bit set of IoctlBit* that the descriptor accepts
}

// Range is struct uffdio_range.
type Range struct {
	Start uint64
	Len   uint64
}

// Register is struct uffdio_register.
type Register struct {
	Range  Range
	Mode   uint64 // RegisterMode*
	Ioctls uint64 // out: bit set of IoctlBit* available on the range
}

// WriteProtect is struct uffdio_writeprotect.
type WriteProtect struct {
	Range Range
	Mode  uint64 // WriteProtectMode*; without WriteProtectModeWP it unprotects
}

// Definitions from include/uapi/linux/fs.h (Linux 6.7 and later).

// PagemapScan is PAGEMAP_SCAN: _IOWR('f', 16, struct pm_scan_arg).
const ioctlPagemapScan = 0xC0606610

// Page categories (PAGE_IS_*), used in the masks of PMScanArg and reported
// in PageRegion.Categories.
const (
	PageIsWPAllowed = 1 << 0 // PAGE_IS_WPALLOWED
	PageIsWritten   = 1 << 1 // PAGE_IS_WRITTEN
	PageIsFile      = 1 << 2 // PAGE_IS_FILE
	PageIsPresent   = 1 << 3 // PAGE_IS_PRESENT
	PageIsSwapped   = 1 << 4 // PAGE_IS_SWAPPED
	PageIsPFNZero   = 1 << 5 // PAGE_IS_PFNZERO
	PageIsHuge      = 1 << 6 // PAGE_IS_HUGE
)

// Flags of PMScanArg.Flags (PM_SCAN_*).
const (
	// ScanWPMatching is PM_SCAN_WP_MATCHING: write-protect the matched
	// pages in the same walk.
	ScanWPMatching = 1 << 0
	// ScanCheckWPAsync is PM_SCAN_CHECK_WPASYNC: fail with EPERM if part of
	// the range is not registered for asynchronous write-protection.
	ScanCheckWPAsync = 1 << 1
)

// PageRegion is struct page_region: the pages in [Start, End) share
// Categories (masked by PMScanArg.ReturnMask).
type PageRegion struct {
	Start      uint64
	End        uint64
	Categories uint64
}

// PMScanArg is struct pm_scan_arg.
type PMScanArg struct {
	Size              uint64 // sizeof(struct pm_scan_arg)
	Flags             uint64 // ScanWPMatching, ScanCheckWPAsync
	Start             uint64 // first address of the walk, page-aligned
	End               uint64 // end of the walk (exclusive)
	WalkEnd           uint64 // out: where the walk stopped; may be stale, see Scan
	Vec               uint64 // address of a []PageRegion
	VecLen            uint64 // its length
	MaxPages          uint64 // 0 = unlimited
	CategoryInverted  uint64
	CategoryMask      uint64
	CategoryAnyofMask uint64
	ReturnMask        uint64
}
