package main

func main() {
	n := 8
	a := make([]int, n)
	name := "x"
	m := map[int]int{}
	//cape:checkpoint n, name // want "name \\(string\\) cannot be saved"
	n++
	//cape:checkpoint m // want "m \\(map\\[int\\]int\\) cannot be saved"
	n++
	names := [][]string{{"y"}}
	//cape:checkpoint names // want "names \\(\\[\\]\\[\\]string\\) cannot be saved: its elements: a string points outside the arena"
	n++
	//cape:checkpoint nothere // want "nothere is not a variable in scope here"
	n++
	//cape:checkpoint n+1 // want "is not a variable name"
	n++
	//cape:parallel for
	for i := 0; i < n; i++ {
		//cape:checkpoint n // want "//cape:checkpoint inside the parallel region"
		a[i] = i
	}
	_, _, _ = name, m, names
}
