package cape

import (
	"reflect"
	"runtime"
	"sync/atomic"
)

// Present and its siblings make arena memory present on this node before
// the kernel accesses it. They are the runtime's side of lazy transfer with
// a user-mode-only userfaultfd (monitor.Lazy.UserModeOnly), which any user
// may have: there a system call that reads or writes an invalidated page
// of the arena (a read(2) into a shared []byte, a write(2) from one) fails
// with EFAULT, or moves fewer bytes than asked where the buffer starts on
// a page in memory, instead of waiting for the page. The translator wraps
// every argument that may reach such memory, of every call to a function
// outside the translated package, in a call of one of them (translate's
// present.go); each loads one byte of every arena page the argument
// reaches, from user mode, which faults the page in through the pager
// helper where it is missing. A load, not a write: the helper installs a
// fetched page write-protected, so the kernel's write that follows is
// tracked by the write protection exactly as the program's own writes are
// (the write-intent touch the kernel made with a full userfaultfd); a write
// here would only make unwritten pages read as written. Elsewhere (the
// master, a node with a full userfaultfd or eager transfer) they return at
// once. A page stays present until the next exchange invalidates it, so
// memory that another package keeps and hands to the kernel after a later
// region is not covered: docs/transfer.md states the limits.

// presentArena is the arena while this node's kernel accesses to it need
// its pages made present first (a lazy slave with a user-mode-only
// userfaultfd), else nil.
var presentArena atomic.Pointer[presentMem]

// presentMem is the memory whose pages the present calls touch.
type presentMem struct {
	mem []byte
	ps  uintptr // page size
}

// setPresent turns the present calls on over mem (the arena, of pageSize
// pages), or off.
func setPresent(mem []byte, pageSize int, on bool) {
	if !on {
		presentArena.Store(nil)
		return
	}
	presentArena.Store(&presentMem{mem: mem, ps: uintptr(pageSize)})
}

// Present makes the arena pages that s's elements (up to its capacity)
// occupy present on this node, and returns s. It is what the translator
// wraps around a slice of pointer-free elements handed to another package.
func Present[S ~[]E, E any](s S) S {
	if m := presentArena.Load(); m != nil && cap(s) > 0 {
		m.touch(sliceAddr(s), uintptr(cap(s))*sizeOf[E]())
	}
	return s
}

// PresentPtr makes the arena pages that *p occupies present on this node,
// and returns p; see Present.
func PresentPtr[T any](p *T) *T {
	if m := presentArena.Load(); m != nil && p != nil {
		m.touch(ptrAddr(p), sizeOf[T]())
	}
	return p
}

// PresentAll makes present, on this node, every arena page that v reaches
// through slices, pointers, arrays, structs, maps and interfaces, and
// returns v; see Present. The translator uses it for values that hold
// references below their top level (the rows of a [][]byte for writev).
func PresentAll[T any](v T) T {
	if m := presentArena.Load(); m != nil {
		w := presentWalk{m: m}
		w.value(reflect.ValueOf(any(v)))
	}
	return v
}

// touch loads one byte of each page of m that the bytes [addr, addr+size)
// overlap, if they are in m.
func (m *presentMem) touch(addr, size uintptr) {
	base := sliceAddr(m.mem)
	end := base + uintptr(len(m.mem))
	if size == 0 || addr >= end || addr+size <= base {
		return
	}
	lo, hi := max(addr, base)-base, min(addr+size, end)-base
	var acc byte
	for off := lo &^ (m.ps - 1); off < hi; off += m.ps {
		acc += m.mem[off]
	}
	runtime.KeepAlive(acc)
}

// presentWalk is PresentAll's walk of one value: m is the arena, seen the
// memory it visited already (address and length).
type presentWalk struct {
	m    *presentMem
	seen map[[2]uintptr]bool
}

func (w *presentWalk) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.Slice:
		if v.Cap() == 0 || w.visit(v.Pointer(), uintptr(v.Cap())*v.Type().Elem().Size()) {
			return
		}
		if holdsRefs(v.Type().Elem()) {
			for i := range v.Len() {
				w.value(v.Index(i))
			}
		}
	case reflect.Pointer:
		if v.IsNil() || w.visit(v.Pointer(), v.Type().Elem().Size()) {
			return
		}
		w.value(v.Elem())
	case reflect.Array:
		if holdsRefs(v.Type().Elem()) {
			for i := range v.Len() {
				w.value(v.Index(i))
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if holdsRefs(v.Type().Field(i).Type) {
				w.value(v.Field(i))
			}
		}
	case reflect.Interface:
		w.value(v.Elem())
	case reflect.Map:
		if v.IsNil() || w.visit(v.Pointer(), 1) {
			return
		}
		it := v.MapRange()
		for it.Next() {
			w.value(it.Key())
			w.value(it.Value())
		}
	}
}

// visit touches [addr, addr+size) and reports whether it was visited
// before. The set of visited memory is made at the first visit.
func (w *presentWalk) visit(addr, size uintptr) bool {
	k := [2]uintptr{addr, size}
	if w.seen[k] {
		return true
	}
	if w.seen == nil {
		w.seen = map[[2]uintptr]bool{}
	}
	w.seen[k] = true
	w.m.touch(addr, size)
	return false
}

// holdsRefs reports whether a value of type t may reach other memory:
// slices, pointers, maps and interfaces, directly or in arrays and
// structs. Strings, functions and channels are not followed.
func holdsRefs(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Slice, reflect.Pointer, reflect.Map, reflect.Interface:
		return true
	case reflect.Array:
		return t.Len() > 0 && holdsRefs(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsRefs(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}
