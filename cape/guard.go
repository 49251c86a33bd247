package cape

import (
	"fmt"
	"os"

	"github.com/cape-go/cape/cape/internal/stdio"
)

// A Guard watches one call of a function that holds a parallel region: the
// translator emits `defer cape.Enter().Leave()` at its top. A panic (or
// runtime.Goexit) that unwinds the call while one of its regions runs
// leaves the region part-way on this node: its share of the iterations
// half done, the other nodes waiting for it or gone ahead, its output
// still captured. If the program recovers, nothing it does after can be
// right, so the next region, checkpoint point or the job's end stops the
// job naming the region; if it does not, the panic ends the process as
// under go run.
//
// In a program that starts goroutines (GoroutineRegions), a goroutine
// running regions may let main go on before its guard's Leave runs (its
// own `defer wg.Done()` runs first): main's next region is then not one
// the goroutine's call left, which the guard tells by the goroutine that
// began it.
type Guard struct {
	n   *node
	cur *Region // the region running when the call began (nil: none)
	gid uint64  // the goroutine of the call, with GoroutineRegions
}

// Enter returns the guard of the call that begins.
func Enter() Guard {
	n := self
	if n == nil {
		return Guard{}
	}
	g := Guard{n: n, cur: n.cur}
	if n.goRegions {
		g.gid = goroutineID()
	}
	return g
}

// Leave notes, at the end of the guarded call, a region of the call left
// running: the call is unwinding through it.
func (g Guard) Leave() {
	if g.n == nil {
		return
	}
	if c := g.n.cur; c != nil && c != g.cur && g.n.abandoned == nil && c.gid == g.gid {
		g.n.abandoned = c
	}
}

// Abandoned reports whether a region was left part-way by a panic (the
// emitted main asks, to tell a panic in flight from one the program
// recovered).
func Abandoned() bool {
	n := self
	return n != nil && n.abandoned != nil
}

// checkAbandoned is the error of a node that went on after a region was
// left part-way, or nil.
func (n *node) checkAbandoned() error {
	r := n.abandoned
	if r == nil {
		return nil
	}
	return fmt.Errorf("%s was left part-way by a panic the program recovered (or by runtime.Goexit): this node's share of it is half done and its output lost, and the other nodes' shares cannot be joined with it; recover inside the iteration (in a function the loop body calls), or let the panic end the program", r.label())
}

// tellLostOutput handles, where the program ends inside a region (os.Exit
// or log.Fatal in an iteration, a panic that ends it), what that region's
// iterations printed on this node, which would have been written in
// iteration order at the region's end. On the master, when it ran every
// iteration before the current unit itself (ranAllBefore: a static
// block's first, or the re-run of a lost slave's after its own), the
// lines of those units and of the current one are what go run prints
// before it ends: they go to standard output in iteration order. Else
// they cannot take their place in the output and are written on standard
// error instead (the last heldMax bytes), so that a message the program
// printed before it ended (`fmt.Println("bad input at", i); os.Exit(1)`)
// is seen; on the master, with the status 0 (ExitCode), that is an error:
// the job's output would differ from go run's while its status says all
// is well.
func (n *node) tellLostOutput() error {
	r := n.cur
	if r == nil {
		r = n.abandoned
	}
	if r == nil || !n.out.Holds() {
		return nil
	}
	held, err := n.out.End(true)
	var segs []stdio.Segment
	if err == nil {
		segs, err = stdio.Order([][]byte{held})
	}
	if err != nil {
		notice("cape: %s: the program ends inside %s: what its iterations printed on this node before is lost (a region's output is written in iteration order at its end; reading it back: %v)\n", n.name, r.label(), err)
		return nil
	}
	whole, cur := r.ranAllBefore()
	var text []byte
	for _, s := range segs {
		if !whole || s.Lo <= int64(cur) {
			text = append(text, s.B...)
		}
	}
	if whole && n.rank == 0 && r == n.cur {
		if _, err := os.Stdout.Write(text); err != nil {
			notice("cape: %s: the program ends inside %s: writing what its iterations printed: %v\n", n.name, r.label(), err)
		}
		return nil
	}
	if n.rank == 0 && r == n.cur && n.exitCode == 0 {
		return fmt.Errorf("the program ends with status 0 inside %s (os.Exit(0) in an iteration), after other nodes ran iterations before the one that ended it: what those printed cannot be placed before what the master's printed (a region's output is written in iteration order at its end), so the job's output would differ from go run's; the job ends with status 1 instead (end the loop's work without os.Exit: record what was found, and exit after the region)", r.label())
	}
	cut := ""
	if len(text) > heldMax {
		cut = fmt.Sprintf("(the first %d bytes left out) ", len(text)-heldMax)
		text = text[len(text)-heldMax:]
	}
	if len(text) > 0 && text[len(text)-1] != '\n' {
		text = append(text, '\n')
	}
	notice("cape: %s: the program ends inside %s: what its iterations printed on this node cannot take its place in the output (a region's output is written in iteration order at its end, and other nodes ran iterations before these), and follows here instead %s---\n%s--- (end of what %s printed in %s)\n",
		n.name, r.label(), cut, text, n.name, r.label())
	return nil
}

// heldMax bounds what tellLostOutput writes of a node's held output.
const heldMax = 64 << 10
