// A batch of data files processed in parallel: each iteration reads and parses one file.
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	names, _ := filepath.Glob("data/run*.txt")
	n := len(names)
	mean := make([]float64, n)
	cnt := make([]int, n)
	bad := 0
	//cape:parallel for schedule(dynamic) reduction(+:bad)
	for i := 0; i < n; i++ {
		f, err := os.Open(names[i])
		if err != nil {
			bad++
			continue
		}
		sc := bufio.NewScanner(f)
		s, c := 0.0, 0
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			v, err := strconv.ParseFloat(line, 64)
			if err != nil {
				bad++
				continue
			}
			s += v
			c++
		}
		f.Close()
		cnt[i] = c
		if c > 0 {
			mean[i] = s / float64(c)
		}
	}
	for i := range names {
		fmt.Printf("%s %d %.6f\n", filepath.Base(names[i]), cnt[i], mean[i])
	}
	fmt.Println("bad", bad)
}
