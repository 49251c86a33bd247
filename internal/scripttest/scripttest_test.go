package scripttest

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestParse reads a script with comments, a command with no output, one
// with two lines and a trailing comment, and checks every block's parts.
func TestParse(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.txt")
	script := "# one\n\nstart nodes=2\n----\n\n# two\nstep a b=3\n----\nx\ny\n\n# end\n"
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	blocks, tail := parse(t, file)
	want := []block{
		{Pre: []string{"# one", ""}, Line: 3, Cmd: "start nodes=2"},
		{Pre: []string{"# two"}, Line: 7, Cmd: "step a b=3", Want: []string{"x", "y"}},
	}
	if !reflect.DeepEqual(blocks, want) {
		t.Errorf("blocks:\n%+v\nwant\n%+v", blocks, want)
	}
	if !reflect.DeepEqual(tail, []string{"# end"}) {
		t.Errorf("tail %q, want [# end]", tail)
	}
}

// TestArgs checks a command's name and its key=value and bare arguments.
func TestArgs(t *testing.T) {
	name, a := Fields("step node=2 pages=1,5 bare")
	if name != "step" {
		t.Errorf("name %q, want step", name)
	}
	if n, err := a.MustInt("node"); n != 2 || err != nil {
		t.Errorf("node: %d, %v", n, err)
	}
	if _, err := a.MustInt("seq"); err == nil {
		t.Error("a missing seq= was not an error")
	}
	if n, err := a.Int("seq", 7); n != 7 || err != nil {
		t.Errorf("seq with default 7: %d, %v", n, err)
	}
	if xs, err := a.Ints("pages"); !reflect.DeepEqual(xs, []int{1, 5}) || err != nil {
		t.Errorf("pages: %v, %v", xs, err)
	}
	if xs, err := a.Ints("none"); xs != nil || err != nil {
		t.Errorf("an absent list: %v, %v", xs, err)
	}
	if v, ok := a["bare"]; !ok || v != "" {
		t.Errorf("bare: %q, %v", v, ok)
	}
	if _, err := a.Int("pages", 0); err == nil {
		t.Error("pages=1,5 read as one integer")
	}
}
