// Package arena owns CAPE's shared-memory arena: one anonymous mapping at
// the same fixed virtual address on every node, and the deterministic bump
// allocator that places shared objects in it.
//
// In a nutshell, it works as follows. Every node maps the arena at Base
// (MAP_FIXED_NOREPLACE on Linux, so a clash is an error naming what holds the
// address, never a silent move) with MAP_NORESERVE, so only pages that are
// touched cost memory. Because every node runs the same sequential code, it
// makes the same calls to Alloc and Free in the same order, and the
// allocator's choices depend on nothing else: an object lives at the same
// address everywhere and a delta's offsets mean the same bytes on every node.
//
// The allocator has two parts. Allocations smaller than a page take a block
// of their size class (multiples of 16 bytes up to 128, then four classes per
// power of two); a freed block goes on its class's free list (a stack) and is
// the next one of its class handed out. Allocations of a page or more take
// whole pages: a freed range joins a sorted list of free ranges, coalesced
// with its neighbours, and an allocation takes the lowest range that fits
// (first fit), splitting it. Only when nothing free fits does the allocator
// take new memory past everything handed out so far (the extent, Used, which
// a monitor tracks and which freeing never lowers). So a program that
// allocates per time step and frees what it dropped runs in the memory it
// holds live.
//
// Memory handed out again is zeroed by Alloc with ordinary writes. The
// alternative, discarding freed pages (madvise MADV_DONTNEED) so that they
// cost no memory and read back as zero, would change memory behind the
// monitors' backs: their persistent twins would keep the old content, the
// next region's diff would carry the zeroes as writes, and the twins would
// no longer be equal on every node. An ordinary write between regions is
// made by sequential code on every node alike, which every monitor already
// handles (it refreshes the twin and never sends it). Memory never handed
// out is zero from the mapping.
//
// The arena holds numbers and, for types with pointers (rows of a [][]T,
// slice fields), pointers that the runtime (package cape) checks point into
// the arena: the Go garbage collector neither scans nor owns it.
//
// Allocation and freeing are refused while the arena is frozen (inside a
// parallel region), because nodes run different iterations there and would
// allocate differently.
package arena
