package allocs

import (
	"reflect"
	"sort"
	"sync"
)

// Vars is where the variables of one value of a type start: a scalar, a
// pointer or a slice header is one variable, and a struct or an array is
// its fields' or elements' (padding bytes are variables of their own, as
// no program writes them). Two nodes writing different bytes of one
// variable merge into a value neither wrote; the merge asks [Table.Starts].
type Vars struct {
	period int    // the bytes the pattern repeats over (an array's element)
	starts []byte // bit i%8 of starts[i/8]: byte i of the period starts a variable
}

// varsCache holds the Vars of the types allocated so far, by type.
var varsCache sync.Map // reflect.Type → *Vars

// VarsOf returns the Vars of t.
func VarsOf(t reflect.Type) *Vars {
	if v, ok := varsCache.Load(t); ok {
		return v.(*Vars)
	}
	for t.Kind() == reflect.Array && t.Len() > 0 {
		t = t.Elem() // an array's pattern is its element's
	}
	size := max(int(t.Size()), 1)
	v := &Vars{period: size, starts: make([]byte, (size+7)/8)}
	markVars(v.starts, 0, t)
	for i := range size { // padding: every byte a variable
		if !covered(t, i) {
			v.starts[i/8] |= 1 << (i % 8)
		}
	}
	v.starts[0] |= 1
	got, _ := varsCache.LoadOrStore(t, v)
	return got.(*Vars)
}

// markVars sets the bits of the variables of t placed at byte at.
func markVars(starts []byte, at int, t reflect.Type) {
	switch t.Kind() {
	case reflect.Array:
		for i := range t.Len() {
			markVars(starts, at+i*int(t.Elem().Size()), t.Elem())
		}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			markVars(starts, at+int(f.Offset), f.Type)
		}
	default:
		if t.Size() > 0 {
			starts[at/8] |= 1 << (at % 8)
		}
	}
}

// covered reports whether byte i of a value of t belongs to a field or
// element (is not padding).
func covered(t reflect.Type, i int) bool {
	switch t.Kind() {
	case reflect.Array:
		es := int(t.Elem().Size())
		return es > 0 && i/es < t.Len() && covered(t.Elem(), i%es)
	case reflect.Struct:
		for k := range t.NumField() {
			f := t.Field(k)
			if o := i - int(f.Offset); o >= 0 && o < int(f.Type.Size()) {
				return covered(f.Type, o)
			}
		}
		return false
	}
	return i < int(t.Size())
}

// start reports whether byte rel of a run of values starts a variable.
func (v *Vars) start(rel int) bool {
	i := rel % v.period
	return v.starts[i/8]&(1<<(i%8)) != 0
}

// Starts returns the variables of the 8 arena bytes from off, for a merge
// (delta.Locations): bit i is set where byte off+i starts a variable of a
// live allocation or belongs to none.
func (t *Table) Starts(off uint64) uint8 {
	t.mu.Lock()
	defer t.mu.Unlock()
	all := t.all
	i := sort.Search(len(all), func(i int) bool { return uint64(all[i].Off+all[i].Size) > off })
	var m uint8
	for b := range 8 {
		o := off + uint64(b)
		for i < len(all) && uint64(all[i].Off+all[i].Size) <= o {
			i++
		}
		if i == len(all) || o < uint64(all[i].Off) || all[i].Vars == nil || all[i].Vars.start(int(o)-all[i].Off) {
			m |= 1 << b
		}
	}
	return m
}
