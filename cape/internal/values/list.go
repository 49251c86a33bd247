package values

import "fmt"

// Value is a reduction or lastprivate variable registered with a region.
type Value interface {
	// PartialBytes is this node's contribution.
	PartialBytes() []byte
	// Combine computes the result from every node's contribution, in
	// rank order, and stores it (master, or a single node).
	Combine(parts [][]byte) error
	// Set stores the result computed by the master.
	Set(result []byte) error
	// Bytes is the current result.
	Bytes() []byte
}

// List is a region's values in registration order. Its zero value is an
// empty list and costs nothing. It is used by one goroutine, like its
// region.
type List struct {
	vals []Value
}

// Add registers v after the values already registered.
func (l *List) Add(v Value) { l.vals = append(l.vals, v) }

// Len is the number of values registered.
func (l *List) Len() int { return len(l.vals) }

// All is the values in registration order (aliasing the list's storage:
// valid until the next Add).
func (l *List) All() []Value { return l.vals }

// Combine computes every value from the nodes' pieces: parts[rank] is node
// rank's pieces, one per registered value in registration order (an
// unpacked values list). A node with too few or too many pieces, or a piece
// of the wrong size, is an error naming it.
func (l *List) Combine(parts [][][]byte) error {
	for rank, p := range parts {
		if len(p) != len(l.vals) {
			return fmt.Errorf("node %d sent %d values, this node registered %d", rank, len(p), len(l.vals))
		}
	}
	if len(l.vals) == 0 {
		return nil
	}
	col := make([][]byte, len(parts))
	for i, v := range l.vals {
		for rank := range parts {
			col[rank] = parts[rank][i]
		}
		if err := v.Combine(col); err != nil {
			return err
		}
	}
	return nil
}

// Set stores the results the master computed (or a log kept), one piece
// per registered value in registration order.
func (l *List) Set(results [][]byte) error {
	if len(results) != len(l.vals) {
		return fmt.Errorf("%d values received, this node registered %d", len(results), len(l.vals))
	}
	for i, v := range l.vals {
		if err := v.Set(results[i]); err != nil {
			return err
		}
	}
	return nil
}
