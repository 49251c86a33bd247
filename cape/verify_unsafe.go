package cape

import "unsafe"

// VerifyReduction returns the slice that the --verify re-run of r
// accumulates the slice reduction variable v in: v itself where it lies in
// the arena (a checkpoint names it), which VerifyBegin set back to its
// entry values and VerifyEnd compares with the parallel result, else
// entry, a copy of its entry values (the re-run leaves v's result alone).
func VerifyReduction[S ~[]E, E any](r *Region, v, entry S) S {
	if len(v) == 0 || r == nil || r.n == nil {
		return entry
	}
	mem := r.n.arena.Bytes()
	p, base := uintptr(unsafe.Pointer(unsafe.SliceData(v))), uintptr(unsafe.Pointer(unsafe.SliceData(mem)))
	if p < base || p-base >= uintptr(len(mem)) {
		return entry
	}
	copy(v, entry)
	return v
}
