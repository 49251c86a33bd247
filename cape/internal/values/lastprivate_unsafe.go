package values

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"unsafe"
)

// LastPrivate is a lastprivate variable: at the exchange, the value held by
// the node that owns it (the one that ran the sequentially last iteration
// or section) is stored in it on every node. T must not contain pointers
// (the runtime checks it when it registers one), or be a string, whose
// bytes travel. It is used by one goroutine, like its region.
type LastPrivate[T any] struct {
	v     *T
	str   *string // v, when T is a string type; nil otherwise
	owner bool
}

// NewLastPrivate returns *v as a lastprivate variable; owner says whether
// this node ran the sequentially last iteration or section.
func NewLastPrivate[T any](v *T, owner bool) *LastPrivate[T] {
	return &LastPrivate[T]{v: v, str: asString(v), owner: owner}
}

// PartialBytes is this node's piece: a flag byte, 1 when it owns the
// value, then the value's bytes.
func (x *LastPrivate[T]) PartialBytes() []byte {
	flag := byte(0)
	if x.owner {
		flag = 1
	}
	return append([]byte{flag}, valueBytes(x.v, x.str)...)
}

// Bytes is the variable's value (aliasing it, but for a string).
func (x *LastPrivate[T]) Bytes() []byte { return valueBytes(x.v, x.str) }

// Combine stores the value of the node whose flag is 1: the highest such
// rank when several claim it; the variable keeps its value when none does.
func (x *LastPrivate[T]) Combine(parts [][]byte) error {
	for rank, p := range parts {
		if !fits(x.v, x.str, len(p)-1) {
			return fmt.Errorf("node %d sent a lastprivate value of %d bytes, want %d", rank, len(p), 1+len(rawBytes(x.v)))
		}
	}
	for _, p := range parts {
		if p[0] == 1 {
			_ = setLast(x.v, x.str, p[1:])
		}
	}
	return nil
}

// Set stores the value the master chose.
func (x *LastPrivate[T]) Set(b []byte) error { return setLast(x.v, x.str, b) }

// setLast stores b, the value of a lastprivate variable, in *v; s is v
// as a *string when T is a string type, or nil.
func setLast[T any](v *T, s *string, b []byte) error {
	if !fits(v, s, len(b)) {
		return fmt.Errorf("lastprivate value of %d bytes, want %d", len(b), len(rawBytes(v)))
	}
	if s != nil {
		*s = string(b)
		return nil
	}
	copy(rawBytes(v), b)
	return nil
}

// asString is v as a *string when T is a string type (named or not), or
// nil.
func asString[T any](v *T) *string {
	if reflect.TypeFor[T]().Kind() != reflect.String {
		return nil
	}
	return (*string)(unsafe.Pointer(v))
}

// fits reports whether n bytes can be a value of *v: its size (a string,
// s not nil, takes any length).
func fits[T any](v *T, s *string, n int) bool {
	if s != nil {
		return n >= 0
	}
	return n == len(rawBytes(v))
}

// valueBytes is *v's value: its memory (aliasing it), or a string's bytes
// (a copy; s not nil).
func valueBytes[T any](v *T, s *string) []byte {
	if s != nil {
		return []byte(*s)
	}
	return rawBytes(v)
}

// LastAssigned is a lastprivate variable that not every iteration assigns
// (OpenMP's lastprivate(conditional: v)): at the exchange, the value of
// the node that assigned it in the sequentially latest iteration is
// stored in it on every node, as go run leaves it; it keeps its value when
// no iteration assigned it. T must not contain pointers, or be a string.
type LastAssigned[T any] struct {
	v   *T
	str *string // v, when T is a string type; nil otherwise
	at  int64
}

// NewLastAssigned returns *v as a conditional lastprivate variable; at is
// the index of the latest iteration in which this node assigned it, or
// -1 if it did not.
func NewLastAssigned[T any](v *T, at int) *LastAssigned[T] {
	return &LastAssigned[T]{v: v, str: asString(v), at: int64(max(at, -1))}
}

// PartialBytes is this node's piece: the iteration index (8 bytes, little
// endian, -1 for none), then the value's bytes.
func (x *LastAssigned[T]) PartialBytes() []byte {
	return append(binary.LittleEndian.AppendUint64(nil, uint64(x.at)), valueBytes(x.v, x.str)...)
}

// Bytes is the variable's value (aliasing it, but for a string).
func (x *LastAssigned[T]) Bytes() []byte { return valueBytes(x.v, x.str) }

// Combine stores the value of the piece with the latest iteration (the
// highest rank's of equal ones); the variable keeps its value when every
// piece says none.
func (x *LastAssigned[T]) Combine(parts [][]byte) error {
	best, from := int64(-1), -1
	for rank, p := range parts {
		if !fits(x.v, x.str, len(p)-8) {
			return fmt.Errorf("node %d sent a lastprivate value of %d bytes, want %d", rank, len(p), 8+len(rawBytes(x.v)))
		}
		at := int64(binary.LittleEndian.Uint64(p))
		if at < -1 {
			return fmt.Errorf("node %d sent a lastprivate value from iteration %d", rank, at)
		}
		if at >= 0 && at >= best {
			best, from = at, rank
		}
	}
	if from >= 0 {
		_ = setLast(x.v, x.str, parts[from][8:])
	}
	return nil
}

// Set stores the value the master chose.
func (x *LastAssigned[T]) Set(b []byte) error { return setLast(x.v, x.str, b) }
