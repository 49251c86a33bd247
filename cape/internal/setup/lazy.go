package setup

import (
	"errors"
	"fmt"
	"slices"

	"github.com/cape-go/cape/monitor"
)

// LazyOptions are the options of a slave's monitor.Lazy: its memory is
// registered for missing faults, with a userfaultfd that also serves the
// kernel's own faults where this process may create one, else (an
// unprivileged user with vm.unprivileged_userfaultfd=0) a user-mode-only
// one, whose kernel accesses the program's calls make present first
// (cape.Present): lazy transfer does not need privileges.
func (p *Plan) LazyOptions() monitor.LazyOptions {
	return monitor.LazyOptions{Missing: true, UserMode: monitor.UserModeFallback}
}

// LazyMode is the --stats line of a node whose lazy transfer (or
// distributed homes) is on, with a user-mode-only userfaultfd or not.
func (p *Plan) LazyMode(userModeOnly bool) string {
	if userModeOnly {
		return fmt.Sprintf("%s: transfer %s: pages move on first touch, through a user-mode-only userfaultfd (no CAP_SYS_PTRACE, vm.unprivileged_userfaultfd=0): shared memory handed to system calls is made present first", p.Name, p.lazyName())
	}
	return fmt.Sprintf("%s: transfer %s: pages move on first touch, through a userfaultfd that serves the kernel's faults too", p.Name, p.lazyName())
}

// lazyName is the --transfer name of the job's lazy transfer.
func (p *Plan) lazyName() string {
	if p.Homes {
		return "homes"
	}
	return "lazy"
}

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
		why := ""
		if p.Monitor != "" && p.Monitor != "auto" && p.Monitor != monitor.BackendUffd {
			why = fmt.Sprintf(" (--monitor %s cannot fetch a page when it is touched: transfer %s needs --monitor uffd or auto)", p.Monitor, p.lazyName())
		}
		a.Notice = fmt.Sprintf("transfer %s unavailable on node(s) %v%s: the job uses eager transfer", p.lazyName(), slices.Sorted(slices.Values(a.Unable)), why)
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
