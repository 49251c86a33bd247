package translate

import "testing"

// Wraps of one expression's start go after an insertion before the
// statement there and before a replacement of its first token; of two
// wraps, the one made first is the outer one at both ends.
func TestEditorWrapOrder(t *testing.T) {
	e := editor{src: []byte("f(x)\ny")}
	e.replace(2, 3, "(*x)")     // a boxed variable's use
	e.insert(0, "free()\n")     // before the statement
	e.wrap(0, 4, "Q(", ")")     // the outer operand
	e.wrap(2, 3, "P(", ")")     // an inner one
	e.wrap(2, 3, "R(", ")")     // inside P's
	e.insert(5, "before_y()\n") // before the next statement
	got, err := e.apply()
	if err != nil {
		t.Fatal(err)
	}
	if want := "free()\nQ(f(P(R((*x)))))\nbefore_y()\ny"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
