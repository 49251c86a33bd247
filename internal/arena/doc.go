// Package arena owns CAPE's shared-memory arena: one anonymous mapping at
// the same fixed virtual address on every node, and the deterministic bump
// allocator that places shared objects in it.
//
// In a nutshell, it works as follows. Every node maps the arena at Base
// (MAP_FIXED_NOREPLACE on Linux, so a clash is an error naming what holds the
// address, never a silent move) with MAP_NORESERVE, so only pages that are
// touched cost memory. Because every node runs the same sequential code, the
// allocator, which only ever bumps an offset, hands out the same offsets in
// the same order on every node, so an object lives at the same address
// everywhere and a delta's offsets mean the same bytes on every node.
//
// Only pointer-free data may live in the arena: the Go garbage collector
// neither scans nor owns it, and a pointer copied from another node would be
// meaningless. Allocations are never freed; the arena lives as long as the
// process.
//
// Allocation is refused while the arena is frozen (inside a parallel region),
// because nodes run different iterations there and would allocate
// differently.
package arena
