package monitor

// Hint is what the translation of a program proved about its next region,
// which a tracker may use to do less; the zero Hint proves nothing. A
// tracker that uses hints implements Hinter. A wrong hint makes a tracker
// miss writes, so only proofs become hints.
type Hint struct {
	// Clean: since the last region's Stop, nothing wrote the tracked
	// memory except through writes announced by Injector.WillWrite (and
	// pages a lazy tracker installed).
	Clean bool
	// Bounded: the region writes the tracked memory only within Writes.
	Bounded bool
	// Writes are byte ranges of the tracked memory, any order, may overlap.
	Writes []Span
}

// Span is the byte range [Off, Off+Len) of the tracked memory.
type Span struct{ Off, Len int }

// Hinter is implemented by trackers that use hints.
type Hinter interface {
	// SetHint gives the hint for the next Start, which consumes it. h's
	// Writes are copied.
	SetHint(h Hint)
}
