package roster

// SlaveUnits are a slave's units of one region's loop: its static units
// not run yet or, for a dynamic or guided schedule, the chunks the master
// hands out until it says there are no more. The zero SlaveUnits has no
// units. It is not safe for concurrent use.
type SlaveUnits struct {
	static  []Unit
	dynamic bool
	done    bool
}

// Static gives s the static units of rank of size nodes (AppendStatic)
// and reports whether there are none.
func (s *SlaveUnits) Static(count, chunk, rank, size int) (none bool) {
	s.static = AppendStatic(nil, count, chunk, rank, size)
	return len(s.static) == 0
}

// Dynamic makes s hand out the master's chunks.
func (s *SlaveUnits) Dynamic() { s.dynamic = true }

// Clear drops s's static units not run yet.
func (s *SlaveUnits) Clear() { s.static = nil }

// Next returns the next unit, and false once there is none: for a dynamic
// schedule the chunk ask gets from the master, an empty one ending the
// loop; else the next static unit. An error of ask is returned as is.
func (s *SlaveUnits) Next(ask func() (Unit, error)) (Unit, bool, error) {
	switch {
	case s.dynamic:
		if s.done {
			return Unit{}, false, nil
		}
		u, err := ask()
		if err != nil {
			return Unit{}, false, err
		}
		if u.Lo >= u.Hi {
			s.done = true
			return Unit{}, false, nil
		}
		return u, true, nil
	case len(s.static) > 0:
		u := s.static[0]
		s.static = s.static[1:]
		return u, true, nil
	}
	return Unit{}, false, nil
}
