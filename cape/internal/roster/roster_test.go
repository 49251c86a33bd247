package roster

import (
	"slices"
	"testing"
	"time"
)

// TestChunksCoverTheSpaceOnce hands out a dynamic and a guided loop's
// chunks to two slaves and the master in turn: every iteration is handed
// out exactly once, dynamic chunks are the chunk size (the last may be
// short), guided chunks never grow and are at least the chunk size (but
// the last), and an empty chunk ends each slave's loop.
func TestChunksCoverTheSpaceOnce(t *testing.T) {
	const count, chunk = 1000, 7
	for _, guided := range []bool{false, true} {
		m := NewMembers(3, -1)
		ro := New(&m)
		ro.Step(Event{Kind: Begin, Region: Region{Seq: 1, Count: count, Chunk: chunk, Dynamic: true, Guided: guided, Nodes: 3, Rerun: true}})
		ro.Ready()
		seen := make([]int, count)
		prev := count
		ended := 0
		for step := 0; ended < 3; step++ {
			if step > 2*count {
				t.Fatalf("guided=%v: the loop does not end", guided)
			}
			at := time.Unix(int64(step), 0)
			var u Unit
			if rank := step % 3; rank == 0 {
				ro.Step(Event{Kind: NextUnit, At: at})
				a := ro.Ready()
				if len(a) != 1 || (a[0].Kind != Run && a[0].Kind != Wait) {
					t.Fatalf("guided=%v: the master's next: %+v", guided, a)
				}
				if a[0].Kind == Wait {
					ended++
					continue
				}
				u = a[0].Unit
			} else {
				ro.Step(Event{Kind: Recv, Rank: rank, Seq: 1, At: at})
				a := ro.Ready()
				if len(a) != 1 || a[0].Kind != Chunk || a[0].Rank != rank {
					t.Fatalf("guided=%v: a chunk request of node %d: %+v", guided, rank, a)
				}
				u = a[0].Unit
				if u.Lo == u.Hi {
					ended++
					continue
				}
			}
			size := u.Hi - u.Lo
			if !guided && size != chunk && u.Hi != count {
				t.Fatalf("dynamic chunk %v, want %d iterations", u, chunk)
			}
			if guided && (size > prev || size < chunk && u.Hi != count) {
				t.Fatalf("guided chunk %v after one of %d", u, prev)
			}
			prev = size
			for i := u.Lo; i < u.Hi; i++ {
				seen[i]++
			}
		}
		for i, k := range seen {
			if k != 1 {
				t.Fatalf("guided=%v: iteration %d handed out %d times", guided, i, k)
			}
		}
	}
}

// TestStaticUnitsPartition checks that the static units of every virtual
// rank, blocks and block-cyclic chunks, cover the space exactly once, and
// that without a chunk size a rank's one unit is its Block.
func TestStaticUnitsPartition(t *testing.T) {
	for _, count := range []int{0, 1, 5, 12, 101} {
		for _, size := range []int{1, 2, 3, 7} {
			for _, chunk := range []int{0, 1, 3} {
				seen := make([]int, count)
				for v := range size {
					us := AppendStatic(nil, count, chunk, v, size)
					if lo, hi := Block(count, v, size); chunk == 0 && lo < hi && (len(us) != 1 || us[0] != (Unit{lo, hi})) {
						t.Fatalf("count %d size %d rank %d: %v, want its block [%d, %d)", count, size, v, us, lo, hi)
					}
					for _, u := range us {
						if u.Lo >= u.Hi || chunk > 0 && u.Hi-u.Lo > chunk {
							t.Fatalf("count %d size %d chunk %d: unit %v of rank %d", count, size, chunk, u, v)
						}
						for i := u.Lo; i < u.Hi; i++ {
							seen[i]++
						}
					}
				}
				for i, k := range seen {
					if k != 1 {
						t.Fatalf("count %d size %d chunk %d: iteration %d in %d units", count, size, chunk, i, k)
					}
				}
			}
		}
	}
}

// TestReadyEmpties checks that Ready hands each action out once.
func TestReadyEmpties(t *testing.T) {
	m := NewMembers(2, -1)
	ro := New(&m)
	ro.Step(Event{Kind: Begin, Region: Region{Seq: 1, Count: 4, Nodes: 2, Rerun: true}})
	ro.Ready()
	ro.Step(Event{Kind: Recv, Rank: 1, Seq: 1, Delta: true})
	if a := ro.Ready(); len(a) != 2 || a[0].Kind != Commit || a[1].Kind != Wake {
		t.Fatalf("a delta: %+v, want commit and wake", a)
	}
	if a := ro.Ready(); len(a) != 0 {
		t.Fatalf("Ready again: %+v, want nothing", a)
	}
}

// TestActionHelpers checks which actions are a loss's (the region's end
// waits for the receivers carrying them out), Find and Ranks.
func TestActionHelpers(t *testing.T) {
	loss := map[ActionKind]bool{Drop: true, Refuse: true, Declare: true, Lost: true, Leave: true}
	for k := Chunk; k <= Recovered; k++ {
		if got := (Action{Kind: k}).Loss(); got != loss[k] {
			t.Errorf("kind %d: Loss %v, want %v", k, got, loss[k])
		}
	}
	acts := []Action{{Kind: Commit}, {Kind: Chunk, Rank: 1}, {Kind: Wake}, {Kind: Chunk, Rank: 2}}
	for _, c := range []struct {
		acts []Action
		k    ActionKind
		want int
	}{
		{acts, Chunk, 1},
		{acts, Wake, 2},
		{acts, Run, -1},
		{nil, Chunk, -1},
	} {
		if got := Find(c.acts, c.k); got != c.want {
			t.Errorf("Find(%v, %d) = %d, want %d", c.acts, c.k, got, c.want)
		}
	}
	for _, c := range []struct {
		size int
		want []int
	}{{0, []int{}}, {1, []int{0}}, {4, []int{0, 1, 2, 3}}} {
		if got := Ranks(c.size); !slices.Equal(got, c.want) {
			t.Errorf("Ranks(%d) = %v, want %v", c.size, got, c.want)
		}
	}
}
