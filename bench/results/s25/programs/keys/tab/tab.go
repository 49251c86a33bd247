// Package tab lists a table's names.
package tab

// Names returns the keys of m, in the order a range over the map gives.
func Names(m map[string]float64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
