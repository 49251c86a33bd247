package cape

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/cape-go/cape/cape/internal/allocs"
	"github.com/cape-go/cape/internal/arena"
)

// allocTable is the arena's live allocations, as package allocs records
// them: made by Alloc, forgotten by Free.
var allocTable allocs.Table

// arenaTypes maps the spelling of each element type the program has
// allocated in the arena to the type (nil where two types share one
// spelling): a restart that adopts an image's allocations takes their
// layouts from here, never from the image.
var arenaTypes sync.Map // string → reflect.Type

// noteType records t in arenaTypes.
func noteType(t reflect.Type) {
	if old, loaded := arenaTypes.LoadOrStore(t.String(), t); loaded && old != t && old != nil {
		arenaTypes.Store(t.String(), reflect.Type(nil))
	}
}

// pointArena is the arena as a checkpoint image records it: the
// allocator's state, and the live allocations' types and places.
type pointArena struct{ *arena.Arena }

func (pointArena) AppendTable(dst []byte) []byte { return allocTable.AppendEntries(dst) }

// adoptAllocations makes the allocator's state and the allocation table
// those an image recorded, where the program reached its point having
// allocated differently (the time-stepping idiom `next := make(...)`, `u =
// next` leaves the buffers elsewhere at each pass). The translator has
// checked that the point names every variable live there that the loop
// changes, and the arena memory the loop frees was only ever referred to by
// those (cape.Free is inserted only for a buffer's sole reference), so no
// variable left as it is refers to an allocation the image lacks. Each
// allocation's layout comes from the type of that spelling the program
// itself allocated, or noted at the point (NoteType); another is refused.
// It returns the table to check the image against (the caller replaces
// allocTable with it once the image is restored).
func adoptAllocations(a *arena.Arena, state, table []byte) ([]*allocs.Allocation, error) {
	es, err := allocs.ParseEntries(table, a.Size())
	if err != nil {
		return nil, fmt.Errorf("the image's allocations: %w", err)
	}
	all := make([]*allocs.Allocation, len(es))
	for i, e := range es {
		v, _ := arenaTypes.Load(e.Type)
		t, _ := v.(reflect.Type)
		if t == nil {
			return nil, fmt.Errorf("the image holds a []%s allocated at %s, a type this run has not allocated or noted before the point (declared inside a function, or two types spelled alike), so the image cannot be restored", e.Type, e.Where)
		}
		words, err := allocs.PointerWords(t)
		if err != nil {
			return nil, fmt.Errorf("the image's []%s allocated at %s: %w", e.Type, e.Where, err)
		}
		all[i] = &allocs.Allocation{Off: e.Off, N: e.N, Type: e.Type, Ptrs: words, Vars: allocs.VarsOf(t), Where: e.Where}
		if size := int(t.Size()); size > 0 && e.N <= a.Size()/size {
			all[i].Size = e.N * size
		}
	}
	if err := a.SetState(state); err != nil {
		return nil, err
	}
	for _, x := range all {
		if block, ok := a.Live(x.Off); !ok || x.Size == 0 || x.Size > block {
			return nil, fmt.Errorf("the image's %d × %s allocated at %s at arena offset %#x is not inside a live block of its allocator's state", x.N, x.Type, x.Where, x.Off)
		}
	}
	return all, nil
}

// NoteType records T as a type the program allocates in the arena: the
// translator emits it at a //cape:checkpoint point for the types its loop
// allocates, so that a restart adopting an image's allocations knows each
// one before the loop has made it.
func NoteType[T any]() { noteType(reflect.TypeFor[T]()) }
