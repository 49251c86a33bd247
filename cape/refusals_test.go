package cape

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRefusalsBounded floods the limiter with refused connections over
// several intervals: at most refusedBurst lines plus one summary are
// printed per interval, and the lines printed in full plus the summaries'
// counts add up to every connection refused.
func TestRefusalsBounded(t *testing.T) {
	var lines []string
	r := newRefusals(func(s string) { lines = append(lines, s) })
	var tick func()
	r.after = func(d time.Duration, f func()) func() bool {
		if d != refusedInterval {
			t.Errorf("interval %v, want %v", d, refusedInterval)
		}
		tick = f
		return func() bool { tick = nil; return true }
	}
	const intervals, per = 3, 1204
	n := 0
	for range intervals {
		for range per {
			n++
			r.note(fmt.Sprintf("refused a joining node: connection %d", n))
		}
		if tick == nil {
			t.Fatal("no interval timer running")
		}
		f := tick
		tick = nil
		f()
	}
	r.note("refused a joining node: the last one") // summarised by flush
	r.note("refused a joining node: one more")
	r.flush()
	n += 2
	if max := intervals*(refusedBurst+1) + 2; len(lines) > max {
		t.Fatalf("%d lines for %d refused connections, want at most %d", len(lines), n, max)
	}
	sumRE := regexp.MustCompile(`^([0-9,]+) more connections? refused in the last 10s \(([0-9,]+) in all; the last: refused`)
	count, summaries := 0, 0
	for _, l := range lines {
		if m := sumRE.FindStringSubmatch(l); m != nil {
			k, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
			if err != nil {
				t.Fatal(err)
			}
			count += k
			summaries++
			continue
		}
		if !strings.HasPrefix(l, "refused a joining node: ") {
			t.Errorf("unexpected line %q", l)
		}
		count++
	}
	if count != n {
		t.Errorf("the lines account for %d refused connections, want %d:\n%s", count, n, strings.Join(lines, "\n"))
	}
	if summaries != intervals {
		t.Errorf("%d summaries, want %d", summaries, intervals)
	}
	if want := fmt.Sprintf("%s more connections refused", thousands(per-refusedBurst)); !strings.HasPrefix(lines[refusedBurst], want) {
		t.Errorf("first summary %q, want %q...", lines[refusedBurst], want)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1204: "1,204", 1234567: "1,234,567", -1204: "-1,204"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
