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
	const loopHelper = "func compute(a []int) {\n\tfor it := 0; it < 3; it++ {\n" + sweep + "\t}\n}\n\n"
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
		{"a call running a region after the loop: after that call", helper,
			"for it := 0; it < 3; it++ {\n\t\tstep(a)\n\t}\n\tstep(a)\n\tfmt.Println(a)", "\tstep(a)\n\tcape.RegionsDone()"},
		{"a deferred call running a region", helper,
			"defer step(a)\n\tfor it := 0; it < 3; it++ {\n\t\tstep(a)\n\t}\n\tfmt.Println(a)", ""},
		{"a deferred function literal calling a function with a region", helper,
			"defer func() { step(a) }()\n\tfor it := 0; it < 3; it++ {\n\t\tstep(a)\n\t}\n\tfmt.Println(a)", ""},
		{"another package calling back a method with a region", helper + "type rows []int\n\nfunc (r rows) Len() int { return len(r) }\n\nfunc (r rows) Swap(i, j int) { r[i], r[j] = r[j], r[i] }\n\nfunc (r rows) Less(i, j int) bool {\n\tstep(r)\n\treturn r[i] < r[j]\n}\n\n",
			"for it := 0; it < 3; it++ {\n\t\tstep(a)\n\t}\n\tsort.Sort(rows(a))\n\tfmt.Println(a)", "rows(a)))\n\tcape.RegionsDone()"},
		{"a loop in a function literal: after its last call", "",
			"run := func() {\n\t\tfor it := 0; it < 3; it++ {\n" + sweep + "\t\t}\n\t}\n\trun()\n\trun()\n\tfmt.Println(a)", "run()\n\trun()\n\tcape.RegionsDone()"},
		{"a region after the loop: the last, not in a loop (EndLast instead)", "",
			"for it := 0; it < 3; it++ {\n" + sweep + "\t}\n" + sweep + "\tfmt.Println(a)", ""},
		{"a labelled branch in main", "",
			"outer:\n\tfor it := 0; it < 3; it++ {\n" + sweep + "\t\tif a[0] > 1 {\n\t\t\tbreak outer\n\t\t}\n\t}\n\tfmt.Println(a)", ""},
		// After the statement of main's body that holds the last place
		// that may run a region, where no loop of main holds it.
		{"a call of a function with a loop of regions, then the output", loopHelper,
			"compute(a)\n\tfmt.Println(a)", "compute(a)\n\tcape.RegionsDone()"},
		{"a call in an if statement of main's body", loopHelper,
			"if a[0] == 0 {\n\t\tcompute(a)\n\t}\n\tfmt.Println(a)", "\t}\n\tcape.RegionsDone()"},
		{"a region in an if statement of main's body: EndLast, and RegionsDone after the if", "",
			"if a[0] == 0 {\n" + sweep + "\t}\n\tfmt.Println(a)", "\t}\n\tcape.RegionsDone()"},
		{"a function literal called where it is made", loopHelper,
			"func() {\n\t\tcompute(a)\n\t}()\n\tfmt.Println(a)", "}()\n\tcape.RegionsDone()"},
		{"a goroutine joined by wg.Wait()", loopHelper,
			"var wg sync.WaitGroup\n\twg.Add(1)\n\tgo func() {\n\t\tdefer wg.Done()\n\t\tcompute(a)\n\t}()\n\twg.Wait()\n\tfmt.Println(a)", "wg.Wait()\n\tcape.RegionsDone()"},
		{"a goroutine whose loop of regions ends with close(done), received", "",
			"done := make(chan struct{})\n\tgo func() {\n\t\tfor it := 0; it < 3; it++ {\n" + sweep + "\t\t}\n\t\tclose(done)\n\t}()\n\t<-done\n\tfmt.Println(a)", "<-done\n\tcape.RegionsDone()"},
		{"a goroutine ending with a send, received into a variable", loopHelper,
			"done := make(chan int, 1)\n\tgo func() {\n\t\tcompute(a)\n\t\tdone <- 1\n\t}()\n\tv := <-done\n\tfmt.Println(a, v)", "v := <-done\n\tcape.RegionsDone()"},
		// Nowhere: no proof that no region runs after the statement.
		{"a goroutine that signals before its regions", loopHelper,
			"done := make(chan struct{})\n\tgo func() {\n\t\tclose(done)\n\t\tcompute(a)\n\t}()\n\t<-done\n\tprintln(a[0])", ""},
		{"a goroutine that calls wg.Done() before its regions", loopHelper,
			"var wg sync.WaitGroup\n\twg.Add(1)\n\tgo func() {\n\t\twg.Done()\n\t\tcompute(a)\n\t}()\n\twg.Wait()\n\tprintln(a[0])", ""},
		{"a channel another goroutine also sends on", loopHelper,
			"done := make(chan int, 2)\n\tgo func() { done <- 2 }()\n\tgo func() {\n\t\tcompute(a)\n\t\tdone <- 1\n\t}()\n\t<-done\n\tprintln(a[0])", ""},
		{"a wait group main also calls Done on", loopHelper,
			"var wg sync.WaitGroup\n\twg.Add(1)\n\tgo func() {\n\t\tdefer wg.Done()\n\t\tcompute(a)\n\t}()\n\tif a[0] > 5 {\n\t\twg.Done()\n\t}\n\twg.Wait()\n\tprintln(a[0])", ""},
		{"a goroutine no statement waits for", loopHelper,
			"go func() {\n\t\tcompute(a)\n\t}()\n\tprintln(a[0])\n\tselect {}", ""},
		{"a goroutine started in a block of main", loopHelper,
			"if a[0] == 0 {\n\t\tdone := make(chan struct{})\n\t\tgo func() {\n\t\t\tcompute(a)\n\t\t\tclose(done)\n\t\t}()\n\t\t<-done\n\t}\n\tfmt.Println(a)", ""},
		{"a function literal handed to another package", loopHelper,
			"sort.Slice(a, func(i, j int) bool {\n\t\tcompute(a)\n\t\treturn a[i] < a[j]\n\t})\n\tfmt.Println(a)", ""},
		{"a loop of main around a function literal", loopHelper,
			"for it := 0; it < 3; it++ {\n\t\tfunc() { compute(a) }()\n\t}\n\tfmt.Println(a)", ""},
		{"a deferred function literal after the call", loopHelper,
			"compute(a)\n\tdefer func() { compute(a) }()\n\tfmt.Println(a)", ""},
	}
	cfg := &Config{Importer: testImporter(t)}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(hintHead, "\"math\"\n", "\"math\"\n\t\"sort\"\n\t\"sync\"\n", 1) + "var _ = sort.Ints\n\nvar _ sync.Mutex\n\n" + c.funcs + "func main() {\n\ta := make([]int, 16)\n\t" + c.body + "\n}\n"
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
