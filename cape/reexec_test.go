package cape

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cape-go/cape/cape/internal/roster"
)

// TestMasterReexecutesALostSlavesUnits runs a region on the master of a
// 2-node job whose slave is gone, under each schedule: the master's loop
// over its units runs every iteration exactly once (its own, then the
// slave's, or the whole pool), and the region ends with every element
// written, the reduction over all of them, the lastprivate value of the
// last iteration, and a live set of the master alone. The notices of the
// loss and the recovery are written with none of the roster's locks held.
func TestMasterReexecutesALostSlavesUnits(t *testing.T) {
	for _, c := range []struct {
		name  string
		sched Schedule
		chunk int
	}{{"static", Static, 0}, {"static-chunk", Static, 7}, {"dynamic", Dynamic, 3}, {"guided", Guided, 0}} {
		t.Run(c.name, func(t *testing.T) {
			s := masterWithPeer(t, nil)
			n := the()
			n.members = roster.NewMembers(2, -1)
			probe := probeLocks(t, n)
			x := Make[int64](100)
			s.Close() // the slave leaves before sending anything

			r := Begin("lost slave")
			if err := r.Start(); err != nil {
				t.Fatal(err)
			}
			sumR := Reduce(r, OpAdd, int64(5))
			last, owner := -1, false
			runs := make([]int, len(x))
			body := func(lo, hi int, sum *int64) {
				for i := lo; i < hi; i++ {
					runs[i]++
					x[i] = int64(i) * 3
					*sum += x[i]
				}
				if lo < hi && hi == len(x) {
					owner, last = true, hi-1
				}
			}
			sum := sumR.Identity()
			if c.sched == Static && c.chunk == 0 {
				for lo, hi, more := r.First(len(x)); more; lo, hi, more = r.Next() {
					body(lo, hi, &sum)
				}
			} else {
				for lo, hi := range r.Chunks(len(x), c.sched, c.chunk) {
					body(lo, hi, &sum)
				}
			}
			sumR.Partial(sum)
			LastPrivate(r, &last, owner)
			d, err := r.Create()
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Stop(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- r.Exchange(d) }()
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Exchange still blocked after 10s")
			}
			if err != nil {
				t.Fatalf("Exchange: %v", err)
			}
			var want int64 = 5
			for i, v := range x {
				if v != int64(i)*3 || runs[i] != 1 {
					t.Fatalf("x[%d] = %d after %d runs, want %d after 1", i, v, runs[i], i*3)
				}
				want += v
			}
			if got := sumR.Result(); got != want {
				t.Errorf("sum %d, want %d", got, want)
			}
			if last != 99 {
				t.Errorf("lastprivate %d, want 99", last)
			}
			if !slices.Equal(n.members.Live, []int{0}) || len(n.members.Losses) != 1 {
				t.Errorf("live %v, losses %v; want [0], one loss", n.members.Live, n.members.Losses)
			}
			if text := probe.String(); !strings.Contains(text, "cape: master: lost node 1 ") || !strings.Contains(text, "recovered from the loss of node 1") {
				t.Errorf("the notices do not report the loss and the recovery:\n%s", text)
			}
			// The next region runs whole on the master.
			if r2 := Begin("alone"); r2.size != 1 {
				t.Errorf("the next region is split over %d nodes, want 1", r2.size)
			}
		})
	}
}

// TestStrictPolicyFailsOnLoss: with --max-lost 0 the same loss is the
// region's error, naming the node, as before re-execution existed.
func TestStrictPolicyFailsOnLoss(t *testing.T) {
	s := masterWithPeer(t, nil)
	x := Make[int64](10)
	s.Close()
	r := Begin("strict")
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	var units int
	for lo, hi, more := r.First(len(x)); more; lo, hi, more = r.Next() {
		units++
		for i := lo; i < hi; i++ {
			x[i] = 1
		}
	}
	d, _ := r.Create()
	_ = r.Stop()
	err := r.Exchange(d)
	if err == nil || units != 1 {
		t.Fatalf("Exchange: %v after %d units, want an error after the master's own unit", err, units)
	}
	if got := err.Error(); !strings.Contains(got, "node 1") {
		t.Errorf("error %q does not name node 1", got)
	}
}

// lockProbe is the notices' output in a test: it records the notices, and
// fails the test if one is written while the node's roster or loss lock is
// held (the driver carries out the roster's actions after unlocking).
type lockProbe struct {
	t  *testing.T
	n  *node
	mu sync.Mutex
	// mu protects the following field.
	text strings.Builder
}

// probeLocks makes a lockProbe n's notices' output until the test ends.
func probeLocks(t *testing.T, n *node) *lockProbe {
	p := &lockProbe{t: t, n: n}
	notices.Lock()
	old := notices.out
	notices.out = p
	notices.Unlock()
	t.Cleanup(func() { notices.Lock(); notices.out = old; notices.Unlock() })
	return p
}

func (p *lockProbe) Write(b []byte) (int, error) {
	locks := map[string]*sync.Mutex{"node.lossMu": &p.n.lossMu}
	if p.n.rost != nil {
		locks["rosterDriver.mu"] = &p.n.rost.mu
	}
	for name, mu := range locks {
		// Another goroutine may hold it for a moment: only a lock that
		// stays held is the writer's own.
		free := false
		for range 200 {
			if free = mu.TryLock(); free {
				mu.Unlock()
				break
			}
			time.Sleep(time.Millisecond)
		}
		if !free {
			p.t.Errorf("a notice was written with %s held: %q", name, b)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.text.Write(b)
}

func (p *lockProbe) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.text.String()
}
