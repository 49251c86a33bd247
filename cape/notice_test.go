package cape

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// TestNoticeWholeLines checks that notices written at once from many
// goroutines reach the output as whole lines.
func TestNoticeWholeLines(t *testing.T) {
	var buf bytes.Buffer
	notices.Lock()
	old := notices.out
	notices.out = &buf
	notices.Unlock()
	defer func() { notices.Lock(); notices.out = old; notices.Unlock() }()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				notice("cape: node %d: notice %d %s\n", g, i, strings.Repeat("x", 200))
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 800 {
		t.Fatalf("%d lines, want 800", len(lines))
	}
	re := regexp.MustCompile(`^cape: node \d: notice \d+ x{200}$`)
	for _, l := range lines {
		if !re.MatchString(l) {
			t.Fatalf("a notice was not written whole: %q", l)
		}
	}
}

// TestNoticesOnePlace checks that the runtime writes to standard error only
// through notice (and the --stats batches): a new fmt.Fprintf(os.Stderr)
// elsewhere fails here.
func TestNoticesOnePlace(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`os\.Stderr`)
	allowed := map[string]bool{"notice.go": true, "statslog.go": true}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || allowed[f] {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if re.MatchString(line) && !strings.HasPrefix(strings.TrimSpace(line), "//") {
				t.Errorf("%s:%d writes to standard error itself, not through notice: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
