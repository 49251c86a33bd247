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
