//go:build linux

package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/testenv"
	"github.com/cape-go/cape/monitor"
	"golang.org/x/sys/unix"
)

// lazyStatsRE matches the master's per-slave line of a lazy exchange.
var lazyStatsRE = regexp.MustCompile(`lazy transfer after region \S+ #(\d+): node \d+: \d+ bytes sent \((\d+) pages pushed, (\d+) write notices, eager \w+\), (\d+) bytes of pages fetched`)

// TestLazyTransfer runs a program whose regions read what other nodes
// wrote, with sequential code updating pages slaves lack in between, with
// --transfer lazy on 2 and 3 nodes: the output must be go run's; the
// master's statistics must show write notices (invalidation), pages fetched
// and pages pushed, and no fetch once the pattern is learned (after the
// first two steps, four regions), since the pages read are pushed then.
func TestLazyTransfer(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	needLazyPages(t)
	const dir = "./testdata/lazy"
	want := goRun(t, dir)
	for _, nodes := range []string{"2", "3"} {
		stdout, stderr, err := capeRun(nodes, []string{"--transfer", "lazy", "--stats"}, sharedBuild(t, dir), nil)
		if err != nil {
			t.Fatalf("-n %s: %v\n%s", nodes, err, stderr)
		}
		if stdout != want {
			t.Errorf("-n %s --transfer lazy printed %q, go run %q", nodes, stdout, want)
		}
		if strings.Contains(stderr, "unavailable") {
			t.Fatalf("-n %s: lazy transfer was not used:\n%s", nodes, stderr)
		}
		var pushed, notices, fetched int
		for _, m := range lazyStatsRE.FindAllStringSubmatch(stderr, -1) {
			region, _ := strconv.Atoi(m[1])
			p, _ := strconv.Atoi(m[2])
			w, _ := strconv.Atoi(m[3])
			f, _ := strconv.Atoi(m[4])
			pushed, notices, fetched = pushed+p, notices+w, fetched+f
			if region > 4 && f != 0 {
				t.Errorf("-n %s: region #%d: %d bytes fetched once the pattern is learned:\n%s", nodes, region, f, m[0])
			}
		}
		if pushed == 0 || notices == 0 || fetched == 0 {
			t.Errorf("-n %s: %d pages pushed, %d write notices, %d bytes fetched: want all three above zero\n%s",
				nodes, pushed, notices, fetched, stderr)
		}
	}
}

// TestLazyTransferConflict checks that a conflict is still an error naming
// both nodes with lazy transfer.
func TestLazyTransferConflict(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	needLazyPages(t)
	stdout, stderr, err := capeRun("2", []string{"--transfer", "lazy"}, sharedBuild(t, "./testdata/conflict"), nil)
	if err == nil {
		t.Fatalf("a conflicting region succeeded; printed %q", stdout)
	}
	if !strings.Contains(stderr, "nodes 0 and 1 wrote different values to element [0]") {
		t.Errorf("no conflict naming both nodes:\n%s", stderr)
	}
}

// TestLazyTransferMasterLost stops the master (SIGSTOP: it hangs, its
// connections stay open) right after the first region's exchange, when
// the slave's sequential code (b[5] += it) and next region read pages it
// lacks, none pushed yet: the slave's helper cannot fetch them, and the
// job must stop, without hanging, with an error naming the master, never
// going on with other data. (After the loop's last region the slave no
// longer reads: it leaves, cape.RegionsDone.)
func TestLazyTransferMasterLost(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	needLazyPages(t)
	t.Setenv("CAPE_FAULT", "node=0,at=exchange,do=stall,region=1")
	var stdout, stderr lockedBuffer
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		done <- run([]string{"run", "-n", "2", "--timeout", "2s", "--transfer", "lazy", "./testdata/lazy"}, &stdout, &stderr)
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("cape run still running after 60s; stderr:\n%s", stderr.String())
	}
	if err == nil {
		t.Fatalf("the job succeeded without its master: printed %q\n%s", stdout.String(), stderr.String())
	}
	if stdout.String() != "" {
		t.Errorf("the job printed %q without its master", stdout.String())
	}
	msg := regexp.MustCompile(`cape: node 1: lazy pages: fetch page \d+ from the master: .*node 0`)
	if !msg.MatchString(stderr.String()) {
		t.Errorf("the slave did not report the page it could not fetch from the master:\n%s", stderr.String())
	}
	t.Logf("ended in %v: %v\n%s", time.Since(start).Round(time.Millisecond), err, stderr.String())
}

// needLazyPages skips (fails under CAPE_TEST_STRICT=1) unless this process
// can have a slave's lazy tracker.
func needLazyPages(t *testing.T) {
	t.Helper()
	ps := unix.Getpagesize()
	mem, err := unix.Mmap(-1, 0, 4*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	tr, err := monitor.NewLazy(mem, monitor.Options{}, monitor.LazyOptions{Missing: true})
	if err != nil {
		testenv.Skip(t, "lazy transfer unavailable: %v", err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
}
