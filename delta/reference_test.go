package delta

// The byte-exact reference implementations the tests compare the package
// against.

// diffReference is the byte-exact diff, written byte by byte: it appends a
// run for every maximal stretch of bytes where cur and twin differ, so that
// a run never holds an unchanged byte. It takes the same arguments and
// coalesces across calls like [Diff], whose runs cover a superset of its
// runs with the same values; the tests and the fuzz targets compare the two.
// Its deltas may be merged without a base (MergeBase with a nil Base).
func diffReference(d *Delta, off uint64, cur, twin []byte) {
	if d == nil {
		return
	}
	n := min(len(cur), len(twin))
	cur = clip(off, cur[:n])
	n = len(cur)
	for i := 0; i < n; {
		if cur[i] == twin[i] {
			i++
			continue
		}
		start := i
		for i < n && cur[i] != twin[i] {
			i++
		}
		d.appendRun(off+uint64(start), cur[start:i])
	}
}

// sliceBase returns a [Base] over entry, the whole arena at region entry
// (entry[0] is arena offset 0).
func sliceBase(entry []byte) Base {
	return func(off uint64) []byte {
		if off >= uint64(len(entry)) {
			return nil
		}
		return entry[off:]
	}
}
