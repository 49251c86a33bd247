// Package safedir owns one rule of the files CAPE trusts: a directory that
// holds what a program is built from (the runtime's source cache) or
// restored from (a checkpoint directory) is reached only through path
// components that no other user can change.
//
// In a nutshell, Open works as follows on Linux: it walks the absolute path
// from "/" one component at a time with openat(O_NOFOLLOW|O_DIRECTORY), so
// that no symbolic link is followed and each step starts from the directory
// the previous one checked; it refuses a component that another user than
// root and the caller owns, and one that group or others may write unless
// it has the sticky bit (as /tmp has) and is not the last component, since
// then only its entries' owners — root and the caller, checked next — may
// rename them. Missing components are created with mode 0700 when asked.
// Because every component can then be changed only by root and the caller,
// the path names the same directory for as long as the caller keeps it so;
// the returned Dir also holds the last component open, for work relative
// to it.
//
// On other systems Open creates and checks the last component only (see
// safedir_other.go).
package safedir
