package fault

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cape-go/cape/internal/nodeenv"
)

// Points where a fault may fire, and what it does there (see cape.FaultEnv).
var (
	Points  = []string{"init", "start", "compute", "create", "send", "broadcast", "exchange", "stdin"}
	Actions = []string{"crash", "exit", "stall", "drop", "pause", "cut"}
)

// Defaults of after= and for=.
const (
	DefaultAfter = 10 * time.Millisecond
	DefaultPause = 3 * time.Second
)

// A Spec is one parsed fault: where and how a node fails on purpose.
type Spec struct {
	Node   int
	At     string
	Do     string
	Region uint64        // 0: the first region reached
	After  time.Duration // at=compute, at=stdin: past the start
	Pause  time.Duration // do=pause: how long the node stays stopped
}

// A Set is the faults of a job not fired yet. It is not safe for
// concurrent use.
type Set struct {
	specs []*Spec
}

// Parse parses a CAPE_FAULT value: faults separated by semicolons.
func Parse(s string) (*Set, error) {
	set := new(Set)
	for _, one := range strings.Split(s, ";") {
		f, err := ParseOne(strings.TrimSpace(one))
		if err != nil {
			return nil, err
		}
		if f != nil {
			set.specs = append(set.specs, f)
		}
	}
	return set, nil
}

// Len returns the number of faults not fired yet.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.specs)
}

// ParseOne parses one fault; an empty string is none (nil, nil).
func ParseOne(s string) (*Spec, error) {
	if s == "" {
		return nil, nil
	}
	f := &Spec{Node: -1, After: DefaultAfter, Pause: DefaultPause}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return nil, fmt.Errorf("%s: %q is not key=value", nodeenv.Fault, kv)
		}
		if err := f.set(k, v); err != nil {
			return nil, err
		}
	}
	if f.Node < 0 || f.At == "" || f.Do == "" {
		return nil, fmt.Errorf("%s=%q: node, at and do are required", nodeenv.Fault, s)
	}
	if (f.At == "stdin") != (f.Do == "cut") || (f.At == "stdin" && f.Node != 0) {
		return nil, fmt.Errorf("%s=%q: do=cut goes with at=stdin and node=0 (the master cuts its input stream)", nodeenv.Fault, s)
	}
	return f, nil
}

// set sets key k of f to v.
func (f *Spec) set(k, v string) error {
	switch k {
	case "node":
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("%s: node=%q: want a rank", nodeenv.Fault, v)
		}
		f.Node = n
	case "at":
		if !slices.Contains(Points, v) {
			return fmt.Errorf("%s: at=%q: want one of %s", nodeenv.Fault, v, strings.Join(Points, ", "))
		}
		f.At = v
	case "do":
		if !slices.Contains(Actions, v) {
			return fmt.Errorf("%s: do=%q: want one of %s", nodeenv.Fault, v, strings.Join(Actions, ", "))
		}
		f.Do = v
	case "after", "for":
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("%s: %s=%q: want a duration such as 50ms", nodeenv.Fault, k, v)
		}
		if k == "after" {
			f.After = d
		} else {
			f.Pause = d
		}
	case "region":
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n == 0 {
			return fmt.Errorf("%s: region=%q: want a region number from 1", nodeenv.Fault, v)
		}
		f.Region = n
	default:
		return fmt.Errorf("%s: unknown key %q (want node, at, do, region, after, for)", nodeenv.Fault, k)
	}
	return nil
}

// At decides which fault fires on node rank at point at of region (0
// outside regions), and forgets it (a straggler that goes on must not fail
// again). With deferred false, the caller carries f out now; with deferred
// true (at a region's start), f is a compute fault that the caller carries
// out f.After past the start, while the region's work runs. nil: none.
func (s *Set) At(rank int, at string, region uint64) (f *Spec, deferred bool) {
	if s == nil {
		return nil, false
	}
	for i, f := range s.specs {
		if f.Node != rank || (f.Region != 0 && region != f.Region) {
			continue
		}
		if at == "start" && f.At == "compute" {
			s.specs = slices.Delete(s.specs, i, i+1)
			return f, true
		}
		if f.At == at {
			s.specs = slices.Delete(s.specs, i, i+1)
			return f, false
		}
	}
	return nil, false
}

// Take returns node rank's pending fault at point at, whatever the region,
// and forgets it; nil if there is none.
func (s *Set) Take(rank int, at string) *Spec {
	if s == nil {
		return nil
	}
	i := slices.IndexFunc(s.specs, func(f *Spec) bool { return f.Node == rank && f.At == at })
	if i < 0 {
		return nil
	}
	f := s.specs[i]
	s.specs = slices.Delete(s.specs, i, i+1)
	return f
}
