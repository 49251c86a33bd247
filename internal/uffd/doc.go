// Package uffd holds the Linux kernel interfaces that golang.org/x/sys lacks
// and that CAPE's monitor needs: userfaultfd(2) with asynchronous
// write-protection, and the PAGEMAP_SCAN ioctl on /proc/<pid>/pagemap.
//
// In a nutshell, it works as follows. The constants and structs mirror the
// kernel's uapi headers field for field (each definition names its header),
// and the functions are thin wrappers around one syscall or ioctl each,
// returning the raw errno wrapped with the operation's name so that callers
// can turn it into advice. The package keeps no state.
//
// Everything here is Linux-only; on other systems the package is empty.
package uffd
