package delta

import (
	"errors"
	"fmt"
	"strconv"
)

// Errors reported by this package. Functions wrap them with context; test
// for them with [errors.Is].
var (
	// ErrCorrupt means an encoding is malformed: truncated, a checksum
	// mismatch, a bad field, or runs that are not sorted and disjoint.
	ErrCorrupt = errors.New("corrupt delta encoding")
	// ErrTooLarge means an encoding declares more runs or bytes than the
	// decoder's [Limits] allow, or a delta is too large to encode.
	ErrTooLarge = errors.New("delta too large")
	// ErrVersion means an encoding has a format version this package does
	// not know.
	ErrVersion = errors.New("unsupported delta format version")
	// ErrInvalid means an in-memory delta breaks the package's invariants:
	// runs out of order or overlapping, a run past 2^64-1, a node that is
	// neither [Merged] nor a rank, or deltas of another region.
	ErrInvalid = errors.New("invalid delta")
	// ErrConflict means two deltas wrote different values to the same byte.
	// [*ConflictError] matches it.
	ErrConflict = errors.New("conflicting writes")
	// ErrOutOfBounds means a run does not fit in the memory or arena it
	// targets. [*BoundsError] matches it.
	ErrOutOfBounds = errors.New("run out of bounds")
	// ErrCompression means an unknown compression kind.
	ErrCompression = errors.New("unknown compression")
)

// ConflictError reports two deltas of one region that wrote different values
// to the same arena byte: a race in the user's program (Bernstein's
// conditions broken). It is a plain value, safe for concurrent use.
type ConflictError struct {
	Region uint64 // region instance of the deltas
	Offset uint64 // lowest conflicting arena offset found
	NodeA  int    // a node that wrote ValueA at Offset
	NodeB  int    // a node that wrote ValueB at Offset
	ValueA byte
	ValueB byte
	// Same: both wrote the same value (ValueA = ValueB), a conflict in a
	// merge of updates (MergeUpdatesInto).
	Same bool
	// Mixed: the two wrote different bytes of the variable (Rule.Locations)
	// that starts at Offset, which would hold a value neither wrote; the
	// values are not set.
	Mixed bool
	span  uint8 // with Mixed: the variable's bytes in its word from Offset
}

// Error names both writers, the offset and both values. The region is the
// caller's context: it is not repeated here.
func (e *ConflictError) Error() string {
	if e.Mixed {
		return fmt.Sprintf("%s and %s wrote different bytes of the variable at arena offset %#x", nodeName(e.NodeA), nodeName(e.NodeB), e.Offset)
	}
	if e.Same {
		return fmt.Sprintf("%s and %s both updated arena offset %#x (both wrote %#02x)", nodeName(e.NodeA), nodeName(e.NodeB), e.Offset, e.ValueB)
	}
	return fmt.Sprintf("%s and %s wrote different values to arena offset %#x (%#02x vs %#02x)",
		nodeName(e.NodeA), nodeName(e.NodeB), e.Offset, e.ValueA, e.ValueB)
}

// Is reports whether target is [ErrConflict].
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// BoundsError reports a run that does not fit in the memory (Apply) or the
// arena ([Limits].ArenaSize in Decode) it targets. It is a plain value, safe
// for concurrent use.
type BoundsError struct {
	Offset uint64 // run offset
	Length uint64 // run length in bytes
	Size   uint64 // size of the memory or arena
}

func (e *BoundsError) Error() string {
	return fmt.Sprintf("run at offset %#x of length %d does not fit in memory of size %#x",
		e.Offset, e.Length, e.Size)
}

// Is reports whether target is [ErrOutOfBounds].
func (e *BoundsError) Is(target error) bool { return target == ErrOutOfBounds }

func nodeName(n int) string {
	if n == Merged {
		return "merged delta"
	}
	return "node " + strconv.Itoa(n)
}
