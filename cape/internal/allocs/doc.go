// Package allocs owns what the runtime remembers of the arena's live
// allocations: their element types, where the user's program made them, and
// where their pointer words lie; and the checks made with it: naming the
// variable behind an arena offset, finding pointers stored in the arena that
// point out of it, and refusing frees of what does not start an allocation.
//
// In a nutshell, it works as follows. The runtime (package cape) asks
// PointerWords for the layout of a type before allocating it, which also
// refuses the types the arena cannot hold (strings, maps, channels,
// functions, interfaces). Each allocation the arena hands out is recorded in
// a Table (Add) with that layout and the file:line of the user's call
// (Caller); Release forgets it again when the program frees it. The table
// keeps its allocations sorted by offset, and those with pointer words in a
// second list, so that CheckPointers, which the runtime runs at every
// region's Start and after every merge, reads only the words that can hold
// a pointer. Describe turns an offset (a merge conflict, a --verify
// difference) into the element of the variable that holds it, in the
// user's words.
//
// The package holds no reference to the runtime, the arena or the network:
// the arena's offsets and memory are passed in, errors are returned, and
// nothing here prints, panics or exits. A Table is safe for concurrent use.
package allocs
