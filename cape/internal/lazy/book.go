package lazy

// The master's bookkeeping: which pages each slave lacks (invalidated by a
// write notice, not fetched since), which it fetched after each region's
// notices, and from these the plan of what each slave gets at the end of
// a region. Every function here is called with the Master's mu held.

// lack records that slave s lacks page p since region's notice.
func (m *Master) lack(s, p int, region string) {
	m.lacks[s][p] = region
	if m.nlack[p]++; m.nlack[p] == 1 {
		m.unsnapped = append(m.unsnapped, p)
		m.topLack = max(m.topLack, p)
	}
}

// unlack records that slave s holds page p again.
func (m *Master) unlack(s, p int) {
	delete(m.lacks[s], p)
	if m.nlack[p]--; m.nlack[p] <= 0 {
		delete(m.nlack, p)
		if b, ok := m.snap[p]; ok {
			m.spare = append(m.spare, b)
			delete(m.snap, p)
		}
	}
}

// learnedSet returns the set of pages slave s fetched after the notices
// of region name, which that region's next instance pushes to it.
func (m *Master) learnedSet(name string, s int) pageSet {
	sets := m.learned[name]
	if sets == nil {
		sets = make([]pageSet, len(m.lacks))
		m.learned[name] = sets
	}
	if sets[s] == nil {
		sets[s] = pageSet{}
	}
	return sets[s]
}

// Page actions of a plan.
const (
	actRuns  = 1 + iota // push the merged runs on the page
	actWhole            // push the whole page: the slave lacks it
)

// plan is what one slave gets at the end of a region.
type plan struct {
	act     map[int]uint8 // pushed pages
	notices []int
	eager   bool // the slave read most of what changed last time: everything is pushed
}

// plan decides, for slave s at the end of region name, which changed pages
// it gets pushed and which it gets notices of. writer[p] is the only rank
// whose delta touched p, or -1.
func (m *Master) plan(pl *plan, s int, name string, changed []int, writer map[int]int) {
	var learned pageSet
	if sets := m.learned[name]; sets != nil {
		learned = sets[s]
	}
	hits := 0
	for _, p := range changed {
		if _, ok := learned[p]; ok {
			hits++
		}
	}
	// Where the slave read most of what changed, the notices and faults
	// cannot pay: push everything, as the eager transfer does.
	if pl.act == nil {
		pl.act = map[int]uint8{}
	}
	clear(pl.act)
	pl.notices = pl.notices[:0]
	pl.eager = len(changed) > 0 && 2*hits >= len(changed)
	lacks := m.lacks[s]
	for _, p := range changed {
		if writer[p] == s {
			continue // its own writes: it has the page as merged
		}
		_, lacking := lacks[p]
		_, wanted := learned[p]
		switch {
		case (pl.eager || wanted) && lacking:
			pl.act[p] = actWhole
			m.unlack(s, p)
		case pl.eager || wanted:
			pl.act[p] = actRuns
		case !lacking:
			pl.notices = append(pl.notices, p)
			m.lack(s, p, name)
		}
	}
}
