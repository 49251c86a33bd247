package main

import "fmt"

type Node struct {
	V    int
	Next *Node
}

func (n *Node) Self() *Node { return n }

func main() {
	vals := []Node{{V: 1}, {V: 2}, {V: 3}}
	var ptrs []*Node
	for _, v := range vals {
		ptrs = append(ptrs, v.Self())
	}
	a := make([]int, 6)
	//cape:parallel for
	for i := 0; i < 6; i++ {
		a[i] = i + 1
	}
	for _, p := range ptrs {
		fmt.Print(p.V, " ")
	}
	fmt.Println(a)
}
