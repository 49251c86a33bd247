package setup

import (
	"errors"
	"fmt"
)

// LazyAgreement is the master's decision on lazy transfer for the job.
type LazyAgreement struct {
	On bool
	// Unable are the ranks whose trackers cannot serve lazy transfer, in
	// the order asked.
	Unable []int
	// Notice, if not "", is what the master tells the user: lazy transfer
	// was asked for by name and some nodes cannot have it.
	Notice string
}

// AgreeLazy decides lazy transfer for the job from the slaves' answers to
// the start-up's lazy hello: capable[i] is the answer of rank ranks[i].
// Lazy transfer is on when every slave can serve it.
func (p *Plan) AgreeLazy(ranks []int, capable []bool) LazyAgreement {
	a := LazyAgreement{On: true}
	for i, ok := range capable {
		if !ok {
			a.On = false
			a.Unable = append(a.Unable, ranks[i])
		}
	}
	if !a.On && p.LazyAsked && len(a.Unable) > 0 {
		a.Notice = fmt.Sprintf("lazy transfer unavailable on node(s) %v: the job uses eager transfer", a.Unable)
	}
	return a
}

// A LazyStep is what a slave does once the master decided on lazy
// transfer.
type LazyStep uint8

const (
	KeepTracker    LazyStep = iota // eager transfer with the plain tracker it has
	ReplaceTracker                 // eager transfer: close the monitor.Lazy, create the backend's tracker
	StartHelper                    // lazy transfer: start the pager helper
)

// ErrLazyRefused is SlaveLazy's error when the master turned lazy transfer
// on although this node said it cannot serve it.
var ErrLazyRefused = errors.New("the master turned lazy transfer on, but this node said it cannot")

// SlaveLazy is a slave's step once the master answered on (lazy transfer
// on or off); capable is what the slave told the master.
func SlaveLazy(capable, on bool) (LazyStep, error) {
	switch {
	case on && capable:
		return StartHelper, nil
	case on:
		return KeepTracker, ErrLazyRefused
	case capable:
		// The plain tracker keeps the eager path as it is (adaptive
		// monitor; no missing-page registration without a helper).
		return ReplaceTracker, nil
	}
	return KeepTracker, nil
}

// LazyFallback is the notice of a node whose monitor.Lazy could not be
// created (err), or "" when lazy transfer was not asked for by name.
func (p *Plan) LazyFallback(err error) string {
	if !p.LazyAsked {
		return ""
	}
	return fmt.Sprintf("%s: lazy transfer unavailable, using eager: %v", p.Name, err)
}
