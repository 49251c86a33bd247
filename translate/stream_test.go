package translate

import (
	"fmt"
	"testing"
)

// TestStdStreamWrites checks that a region may write to os.Stdout and
// os.Stderr through their Write and WriteString methods, as through
// fmt.Fprint, while another file's methods are still refused (they may
// write through what the file holds).
func TestStdStreamWrites(t *testing.T) {
	head := "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n" + `
var _ = fmt.Sprint

func fill(a []int, f *os.File) {
	//cape:parallel for
	for i := range a {
		a[i] = i
		%s
	}
}
`
	cases := []programCase{
		{"os.Stdout.WriteString", `
	fill(make([]int, 8), nil)`, ""},
		{"a file's WriteString", `
	f, _ := os.Create("out.txt")
	fill(make([]int, 8), f)`, `os.File.WriteString may write through the slices or pointers that f holds`},
		{"a parameter that is only ever os.Stdout", `
	fill(make([]int, 8), os.Stdout)`, ""},
	}
	bodies := []string{`os.Stdout.WriteString("x\n"); os.Stderr.Write([]byte("y\n"))`, `f.WriteString("x\n")`, `f.WriteString("x\n")`}
	for i, c := range cases {
		checkPrograms(t, fmt.Sprintf(head, bodies[i]), []programCase{c})
	}
}

// TestHashesHeld: a standard-library hash made in the iteration or the
// section may be written there; one made before the region may be read
// (Sum64) but not written, whatever the writer (its state is each node's
// own: node 1's writes were lost, exit 0).
func TestHashesHeld(t *testing.T) {
	head := "package main\n\nimport (\n\t\"fmt\"\n\t\"hash/fnv\"\n)\n"
	checkPrograms(t, head, []programCase{
		{"made in the iteration", `
	sums := make([]uint64, 8)
	//cape:parallel for
	for i := range sums {
		h := fnv.New64a()
		h.Write([]byte{byte(i)})
		sums[i] = h.Sum64()
	}
	fmt.Println(sums)`, ""},
		{"made before, read", `
	h := fnv.New64a()
	h.Write([]byte("seed"))
	sums := make([]uint64, 8)
	//cape:parallel for
	for i := range sums {
		sums[i] = h.Sum64() + uint64(i)
	}
	fmt.Println(sums)`, ""},
		{"made before, written in a loop", `
	h := fnv.New64a()
	a := make([]int, 8)
	//cape:parallel for
	for i := range a {
		a[i] = i
		if i == 6 {
			h.Write([]byte{6})
		}
	}
	fmt.Println(h.Sum64(), a)`, `main.go:\d+:\d+: h.Write changes the state of the hash h, made before the parallel region`},
		{"made before, written in a section", `
	h1, h2 := fnv.New64a(), fnv.New64a()
	//cape:parallel sections
	{
		//cape:section
		{
			h1.Write([]byte("first"))
		}
		//cape:section
		{
			h2.Write([]byte("second"))
		}
	}
	fmt.Println(h1.Sum64(), h2.Sum64())`, `h1.Write changes the state of the hash h1`},
		{"made before, written by fmt.Fprint", `
	h := fnv.New64a()
	a := make([]int, 8)
	//cape:parallel for
	for i := range a {
		a[i] = i
		fmt.Fprint(h, i)
	}
	fmt.Println(h.Sum64(), a)`, `fmt.Fprint may write through the interface value h`},
	})
}

// TestCacheOnlyShared: a compiled regexp, a time location and a CRC table
// made before a region are shared by its iterations as a number is (their
// methods change only caches of their own); a regexp's Longest changes it.
func TestCacheOnlyShared(t *testing.T) {
	head := "package main\n\nimport (\n\t\"fmt\"\n\t\"hash/crc32\"\n\t\"regexp\"\n\t\"time\"\n)\n\nvar _, _, _ = crc32.IEEE, time.UTC, regexp.QuoteMeta\n"
	checkPrograms(t, head, []programCase{
		{"a regexp", `
	recs := []string{"t=1", "t=22", "x", "t=333"}
	re := regexp.MustCompile("t=([0-9]+)")
	n := make([]int, len(recs))
	//cape:parallel for
	for i := 0; i < len(recs); i++ {
		if m := re.FindStringSubmatch(recs[i]); m != nil {
			n[i] = len(m[1]) + len(re.String())
		}
	}
	fmt.Println(n)`, ""},
		{"a location and a table", `
	loc := time.UTC
	tbl := crc32.MakeTable(crc32.Castagnoli)
	out := make([]int, 4)
	//cape:parallel for
	for i := 0; i < 4; i++ {
		out[i] = time.Unix(int64(i)*7200, 0).In(loc).Hour() + len(loc.String()) + int(crc32.Checksum([]byte{byte(i)}, tbl)%7)
	}
	fmt.Println(out)`, ""},
		{"a regexp's Longest", `
	re := regexp.MustCompile("a+")
	out := make([]int, 4)
	//cape:parallel for
	for i := 0; i < 4; i++ {
		re.Longest()
		out[i] = i
	}
	fmt.Println(out, re)`, `regexp\.Regexp\.Longest may write through the slices or pointers that re holds`},
	})
}

// TestMadeInIteration: files, scanners, regexps and CSV readers that an
// iteration makes are its own; a file opened before the region, whose
// offset every node holds its own of, is refused.
func TestMadeInIteration(t *testing.T) {
	head := "package main\n\nimport (\n\t\"bufio\"\n\t\"encoding/csv\"\n\t\"fmt\"\n\t\"io\"\n\t\"os\"\n\t\"regexp\"\n\t\"strings\"\n)\n\nvar _, _, _, _, _, _ = bufio.ScanWords, csv.ErrQuote, io.EOF, os.Args, regexp.QuoteMeta, strings.ToUpper\n"
	checkPrograms(t, head, []programCase{
		{"files scanned per iteration", `
	names := []string{"a.txt", "b.txt"}
	lines := make([]int, len(names))
	//cape:parallel for
	for i := 0; i < len(names); i++ {
		f, err := os.Open(names[i])
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			lines[i]++
		}
		f.Close()
	}
	fmt.Println(lines)`, ""},
		{"a regexp, a CSV reader and a writer to io.Discard per iteration", `
	recs := []string{"a,1", "b,22"}
	out := make([]int, len(recs))
	//cape:parallel for
	for i := 0; i < len(recs); i++ {
		re := regexp.MustCompile("[0-9]+")
		r := csv.NewReader(strings.NewReader(recs[i]))
		row, _ := r.Read()
		w := bufio.NewWriter(io.Discard)
		w.WriteString(row[0])
		out[i] = len(re.FindString(row[1])) + w.Buffered()
	}
	fmt.Println(out)`, ""},
		{"a file opened before the region", `
	f, _ := os.Open("a.txt")
	out := make([]int, 4)
	//cape:parallel for
	for i := 0; i < 4; i++ {
		buf := make([]byte, 8)
		out[i], _ = f.Read(buf)
	}
	fmt.Println(out)`, `os\.File\.Read may write through the slices or pointers that f holds`},
	})
}

// TestBufferPrintedInto: a bytes.Buffer an iteration declares and prints
// into (fmt.Fprintf(&buf, ...)) is its own.
func TestBufferPrintedInto(t *testing.T) {
	head := "package main\n\nimport (\n\t\"bytes\"\n\t\"fmt\"\n)\n"
	checkPrograms(t, head, []programCase{
		{"a buffer per iteration", `
	out := make([]int, 10)
	//cape:parallel for
	for i := 0; i < 10; i++ {
		var buf bytes.Buffer
		fmt.Fprintf(&buf, "%d", i*i*i)
		out[i] = buf.Len()
	}
	fmt.Println(out)`, ""},
		{"a buffer shared by the iterations", `
	var buf bytes.Buffer
	out := make([]int, 10)
	//cape:parallel for
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&buf, "%d", i)
		out[i] = i
	}
	fmt.Println(out, buf.String())`, `buf is written through in the parallel region`},
	})
}

// TestHashSumPerIteration: the digest of a hash the iteration made
// (s := h.Sum(nil)) is new memory of the iteration's, which other
// packages' functions may read.
func TestHashSumPerIteration(t *testing.T) {
	head := "package main\n\nimport (\n\t\"crypto/sha1\"\n\t\"encoding/binary\"\n\t\"fmt\"\n)\n"
	checkPrograms(t, head, []programCase{
		{"a digest per iteration", `
	out := make([]uint64, 4)
	//cape:parallel for
	for i := 0; i < 4; i++ {
		h := sha1.New()
		h.Write([]byte{byte(i)})
		s := h.Sum(nil)
		out[i] = binary.BigEndian.Uint64(s)
	}
	fmt.Println(out)`, ""},
		{"the digest of a hash made before", `
	h := sha1.New()
	out := make([]uint64, 4)
	//cape:parallel for
	for i := 0; i < 4; i++ {
		s := h.Sum(nil)
		out[i] = binary.BigEndian.Uint64(s) + uint64(i)
	}
	fmt.Println(out)`, `s is written through`},
	})
}
