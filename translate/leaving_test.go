package translate

import (
	"strings"
	"testing"
)

// TestLeaving checks where the slaves leave the job after main's last loop
// of regions (cape.RegionsDone, findLeaving): after the outermost loop that
// holds main's last place that may run a region, and nowhere when a region
// may still run after it.
func TestLeaving(t *testing.T) {
	const sweep = "\t\t//cape:parallel for\n\t\tfor i := 0; i < 16; i++ {\n\t\t\ta[i] += 1\n\t\t}\n"
	const helper = "func step(a []int) {\n" + sweep + "}\n\n"
	cases := []struct {
		name, funcs, body string
		after             string // the statement RegionsDone must follow; "" for none
	}{
		{"a loop of regions, then the output", "",
			"for it := 0; it < 3; it++ {\n" + sweep + "\t}\n\tfmt.Println(a)", "}\n\tcape.RegionsDone()"},
		{"the outermost of two loops", "",
			"for r := 0; r < 2; r++ {\n\t\tfor it := 0; it < 3; it++ {\n" + sweep + "\t\t}\n\t}\n\tfmt.Println(a)", "\t}\n\tcape.RegionsDone()"},
		{"a loop calling a function with a region", helper,
			"for it := 0; it < 3; it++ {\n\t\tstep(a)\n\t}\n\tfmt.Println(a)", "}\n\tcape.RegionsDone()"},
		{"a call running a region after the loop", helper,
			"for it := 0; it < 3; it++ {\n\t\tstep(a)\n\t}\n\tstep(a)\n\tfmt.Println(a)", ""},
		{"a deferred call running a region", helper,
			"defer step(a)\n\tfor it := 0; it < 3; it++ {\n\t\tstep(a)\n\t}\n\tfmt.Println(a)", ""},
		{"a deferred function literal calling a function with a region", helper,
			"defer func() { step(a) }()\n\tfor it := 0; it < 3; it++ {\n\t\tstep(a)\n\t}\n\tfmt.Println(a)", ""},
		{"another package calling back a method with a region", helper + "type rows []int\n\nfunc (r rows) Len() int { return len(r) }\n\nfunc (r rows) Swap(i, j int) { r[i], r[j] = r[j], r[i] }\n\nfunc (r rows) Less(i, j int) bool {\n\tstep(r)\n\treturn r[i] < r[j]\n}\n\n",
			"for it := 0; it < 3; it++ {\n\t\tstep(a)\n\t}\n\tsort.Sort(rows(a))\n\tfmt.Println(a)", ""},
		{"a loop in a function literal", "",
			"run := func() {\n\t\tfor it := 0; it < 3; it++ {\n" + sweep + "\t\t}\n\t}\n\trun()\n\trun()\n\tfmt.Println(a)", ""},
		{"a region after the loop: the last, not in a loop (EndLast instead)", "",
			"for it := 0; it < 3; it++ {\n" + sweep + "\t}\n" + sweep + "\tfmt.Println(a)", ""},
		{"a labelled branch in main", "",
			"outer:\n\tfor it := 0; it < 3; it++ {\n" + sweep + "\t\tif a[0] > 1 {\n\t\t\tbreak outer\n\t\t}\n\t}\n\tfmt.Println(a)", ""},
	}
	cfg := &Config{Importer: testImporter(t)}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(hintHead, "\"math\"\n", "\"math\"\n\t\"sort\"\n", 1) + "var _ = sort.Ints\n\n" + c.funcs + "func main() {\n\ta := make([]int, 16)\n\t" + c.body + "\n}\n"
			out, err := translateMain(t, cfg, src)
			if err != nil {
				t.Fatalf("%v\n%s", err, src)
			}
			n := strings.Count(out, "RegionsDone()")
			switch {
			case c.after == "" && n != 0:
				t.Fatalf("RegionsDone where a region may still run:\n%s", out)
			case c.after != "" && n != 1:
				t.Fatalf("RegionsDone %d times, want once:\n%s", n, out)
			case c.after != "" && !strings.Contains(out, c.after):
				t.Fatalf("RegionsDone not right after the loop (%q):\n%s", c.after, out)
			case strings.Contains(c.name, "EndLast") && !strings.Contains(out, ".EndLast()"):
				t.Fatalf("no EndLast after the last region:\n%s", out)
			}
		})
	}
}
