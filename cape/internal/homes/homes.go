package homes

import (
	"errors"
	"fmt"
	"slices"

	"github.com/cape-go/cape/delta"
)

// Errors reported in [Error] actions. Test for them with [errors.Is].
var (
	// ErrProtocol means an event that the protocol does not allow at this
	// point: a notice outside a region or twice, a node out of range or
	// lost, runs nobody asked for, a write to a page the node never held.
	ErrProtocol = errors.New("protocol violation")
	// ErrStopped means the directory stopped after a conflict or a
	// rollback: the driver must start over from a consistent point.
	ErrStopped = errors.New("directory stopped")
)

// Page is a page index in the arena: page p holds the arena offsets
// [p×PageSize, (p+1)×PageSize).
type Page = int

// Config describes the job to [New]. It is a plain value.
type Config struct {
	Nodes    int // ranks 0..Nodes-1, all live; rank 0 is the master
	PageSize int // bytes per page, > 0
}

// EventKind says what an Event reports.
type EventKind uint8

const (
	// Begin: region instance Seq of site Site begins.
	Begin EventKind = iota + 1
	// Touch: Node accessed Page for the first time since it last held its
	// current version (a fault).
	Touch
	// Notice: Node's write notices at the region's end: Writes, and its
	// opaque Values.
	Notice
	// Runs: Node's runs for the pages it was asked to Collect.
	Runs
	// Replicated: Node (a buddy) now holds a replica of Pages as of
	// version Seq, sent by From (for the driver's logs; the directory
	// does not need it).
	Replicated
	// Lost: Node is lost.
	Lost
)

// Write is one page a node wrote in a region. Runs, when sent, are the
// node's byte runs on the page as [delta.Diff] makes them (arena offsets,
// sorted, inside the page) and Entry the bytes under each run at region
// entry (Entry[i] as long as Runs[i].Data); nil Runs means the node did not
// send them. A Write is a plain value; the directory keeps the slices of
// a Notice or Runs event until the region is released, and reads them only.
type Write struct {
	Page  Page
	Runs  []delta.Run
	Entry [][]byte
}

// Event is one input to Step, a plain value. Fields not named by the kind
// are zero.
type Event struct {
	Kind   EventKind
	Node   int
	Seq    uint64 // Begin: the region instance; Replicated: the version
	Site   int    // Begin: the region's site (its directive), stable across instances
	Page   Page   // Touch
	Writes []Write
	Values []byte // Notice: reductions and lastprivate values, opaque
	From   int    // Replicated
	Pages  []Page // Replicated
}

// ActionKind says what an Action asks of the driver.
type ActionKind uint8

const (
	// Share: Node should send the runs (with entry bytes) of Pages with its
	// notice if it writes them.
	Share ActionKind = iota + 1
	// Fetch: Node gets Page at Version from From; Zero: it maps a zero
	// page instead (version 0, no transfer).
	Fetch
	// Collect: Node must send its runs of Pages (a [Runs] event).
	Collect
	// Conflict: the region failed: Err (a *delta.ConflictError naming both
	// nodes, the arena offset and the values) on Page. The directory stops.
	Conflict
	// Merged: the writers To of Page get Delta, the merged runs of the
	// region (each applies them less its own bytes, see delta.Exclude);
	// From, the lowest writer, is the page's home at Version.
	Merged
	// Invalidate: Node drops Pages (its copies are stale).
	Invalidate
	// Push: From sends Page at Version to To before To leaves the region.
	Push
	// Replicate: From sends Pages at Version to its buddy To, off the
	// critical path; To confirms with [Replicated].
	Replicate
	// Release: region Seq is complete; Values are the nodes' values by rank
	// (nil where none), valid until the next Step.
	Release
	// Discard: Node was lost in the open region: its notice, if sent, is
	// discarded, its units must be re-run, and the master sends its notice
	// (again) after re-running them.
	Discard
	// Rehome: Page's home moves to To, which holds its current version.
	Rehome
	// Recover: Page at Version is restored from the replica on From, its
	// new home.
	Recover
	// Rollback: Pages were homed only on lost Node with no current
	// replica: the job must roll back to its last consistent point. The
	// directory stops.
	Rollback
	// Error: an event broke the protocol (Err wraps ErrProtocol or
	// ErrStopped); the event changed nothing.
	Error
)

// Action is one output of Step, for the driver to carry out in order. Its
// slices are the directory's or the events', valid until the next Step
// (Delta until the driver drops it).
type Action struct {
	Kind    ActionKind
	Node    int
	From    int
	To      []int // Merged: the writers; Push: one rank
	Page    Page
	Pages   []Page
	Version uint64
	Seq     uint64
	Zero    bool
	Delta   *delta.Delta
	Values  [][]byte
	Err     error
}

// entry is one page's record. Pages without one are at version 0 (the
// zero page) and resident nowhere.
type entry struct {
	ver    uint64
	holder int
	copies []int // ranks holding version ver, ascending; holder among them
	site   int   // the site of the region that wrote version ver
	// replica is the buddy holding a replica of the page as of replVer,
	// if hasReplica.
	replica    int
	replVer    uint64
	hasReplica bool
}

// ask is a page whose runs a node was asked for.
type ask struct{ page, rank int }

// Dir is the master's directory of homes. It is not safe for concurrent
// use.
type Dir struct {
	cfg     Config
	live    []bool
	pages   map[Page]*entry
	stopped error

	// The open region, if any.
	open    bool
	seq     uint64
	site    int
	notices [][]Write // by rank: nil until the node's notice arrived
	noticed []bool
	values  [][]byte
	pending map[Page][]int // multiple-writer pages: writers whose runs are missing
	asked   map[ask]bool   // runs asked for with Collect in the open region

	// learned[site][rank] are the pages rank fetched after a region of
	// site had invalidated them: pushed to it at every later instance of
	// site that writes them. shared[site][rank] are the pages that rank
	// wrote together with other nodes in the last instance of site.
	learned map[int][]map[Page]bool
	shared  map[int][][]Page
	lastSeq uint64
	out     []Action
}

// New returns a directory for cfg. It reports an error for fewer than one
// node or a page size that is not positive.
func New(cfg Config) (*Dir, error) {
	if cfg.Nodes < 1 || cfg.PageSize <= 0 {
		return nil, fmt.Errorf("homes: %d nodes, page size %d: %w", cfg.Nodes, cfg.PageSize, ErrProtocol)
	}
	d := &Dir{cfg: cfg, live: make([]bool, cfg.Nodes), pages: map[Page]*entry{},
		learned: map[int][]map[Page]bool{}, asked: map[ask]bool{}, shared: map[int][][]Page{}}
	for i := range d.live {
		d.live[i] = true
	}
	return d, nil
}

// Step applies one event and returns the actions it queued, in order; the
// slice is the directory's, valid until the next Step.
func (d *Dir) Step(ev Event) []Action {
	d.out = d.out[:0]
	if d.stopped != nil {
		return d.fail(fmt.Errorf("%w: %w", ErrStopped, d.stopped))
	}
	if ev.Kind != Begin && !d.isLive(ev.Node) {
		return d.fail(fmt.Errorf("node %d is not a live rank: %w", ev.Node, ErrProtocol))
	}
	var err error
	switch ev.Kind {
	case Begin:
		err = d.begin(ev.Seq, ev.Site)
	case Touch:
		err = d.touch(ev.Node, ev.Page)
	case Notice:
		err = d.notice(ev.Node, ev.Writes, ev.Values)
	case Runs:
		err = d.runs(ev.Node, ev.Writes)
	case Replicated:
		err = d.replicated(ev.Node, ev.Seq, ev.Pages)
	case Lost:
		err = d.lose(ev.Node)
	default:
		err = fmt.Errorf("event kind %d: %w", ev.Kind, ErrProtocol)
	}
	if err != nil {
		return d.fail(err)
	}
	return d.out
}

func (d *Dir) fail(err error) []Action {
	d.out = append(d.out[:0], Action{Kind: Error, Err: err})
	return d.out
}

func (d *Dir) emit(a Action) { d.out = append(d.out, a) }

func (d *Dir) isLive(n int) bool { return n >= 0 && n < len(d.live) && d.live[n] }

// get returns p's entry, nil for a page at version 0 never fetched.
func (d *Dir) get(p Page) *entry { return d.pages[p] }

// ZeroHome is the holder of a page at version 0: the zero page, which
// every node maps without a transfer.
const ZeroHome = -1

// Version returns page p's current version, its holder (ZeroHome at
// version 0) and the nodes that hold that version, ascending (the
// directory's, valid until the next Step).
func (d *Dir) Version(p Page) (ver uint64, holder int, copies []int) {
	if e := d.get(p); e != nil {
		return e.ver, e.holder, e.copies
	}
	return 0, ZeroHome, nil
}

// Replica returns the buddy holding a replica of p and its version; ok is
// false where there is none.
func (d *Dir) Replica(p Page) (node int, ver uint64, ok bool) {
	if e := d.get(p); e != nil && e.hasReplica {
		return e.replica, e.replVer, true
	}
	return 0, 0, false
}

// Resident returns the pages node holds, ascending.
func (d *Dir) Resident(node int) []Page {
	var ps []Page
	for p, e := range d.pages {
		if slices.Contains(e.copies, node) {
			ps = append(ps, p)
		}
	}
	slices.Sort(ps)
	return ps
}

// Pages returns every page the directory has a record of, ascending.
func (d *Dir) Pages() []Page {
	ps := make([]Page, 0, len(d.pages))
	for p := range d.pages {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

// Live reports whether node is a live rank.
func (d *Dir) Live(node int) bool { return d.isLive(node) }

// Open reports whether a region is open (begun and not released).
func (d *Dir) Open() bool { return d.open }

// Stopped returns why the directory stopped (a conflict or a rollback), or
// nil.
func (d *Dir) Stopped() error { return d.stopped }
