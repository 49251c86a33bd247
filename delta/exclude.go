package delta

import "bytes"

// Exclude appends to dst the runs of merged without the bytes that own
// already holds: the bytes own's runs cover with the value merged has
// there. What is left is what a node whose delta is own lacks once the
// region is merged: the other nodes' writes, and, inside own's runs, only
// the bytes where merged differs (another node wrote part of a word that
// own carried along). Both merged and own must be sorted and disjoint (as
// [MergeBase], [Diff] and [Decode] make them); a byte outside own's runs
// is kept whatever its value.
//
// The appended runs alias merged's Data: they are valid as long as merged
// is, and Exclude copies no data. It allocates only when dst must grow.
func Exclude(dst []Run, merged, own []Run) []Run {
	k := 0 // first run of own that may overlap the current merged run
	for _, m := range merged {
		if len(m.Data) == 0 {
			continue
		}
		for k < len(own) && own[k].End() <= m.Off {
			k++
		}
		pos := m.Off // bytes of m before pos are done
		for j := k; j < len(own) && own[j].Off < m.End(); j++ {
			o := own[j]
			if len(o.Data) == 0 {
				continue
			}
			lo, hi := max(o.Off, m.Off), min(o.End(), m.End())
			if lo > pos {
				dst = append(dst, Run{Off: pos, Data: m.Data[pos-m.Off : lo-m.Off]})
			}
			dst = appendDiffering(dst, lo, m.Data[lo-m.Off:hi-m.Off], o.Data[lo-o.Off:hi-o.Off])
			pos = hi
		}
		if pos < m.End() {
			dst = append(dst, Run{Off: pos, Data: m.Data[pos-m.Off:]})
		}
	}
	return dst
}

// appendDiffering appends the maximal stretches of have (at arena offset
// off) whose bytes differ from own, as runs aliasing have.
func appendDiffering(dst []Run, off uint64, have, own []byte) []Run {
	if bytes.Equal(have, own) {
		return dst
	}
	for i := 0; i < len(have); {
		if have[i] == own[i] {
			i++
			continue
		}
		j := i + 1
		for j < len(have) && have[j] != own[j] {
			j++
		}
		dst = append(dst, Run{Off: off + uint64(i), Data: have[i:j:j]})
		i = j
	}
	return dst
}

// Overlap returns the number of arena bytes that both a and b cover; both
// must be sorted and disjoint.
func Overlap(a, b []Run) int {
	n, k := 0, 0
	for _, r := range a {
		for k < len(b) && b[k].End() <= r.Off {
			k++
		}
		for j := k; j < len(b) && b[j].Off < r.End(); j++ {
			n += int(min(r.End(), b[j].End()) - max(r.Off, b[j].Off))
		}
	}
	return n
}
