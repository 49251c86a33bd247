// Package solver holds a grid whose getters return its slice field.
package solver

// Grid is a grid of values.
type Grid struct{ Vals []int }

// View returns g's values.
func View(g *Grid) []int { return g.Vals }

// Vs returns g's values.
func (g *Grid) Vs() []int { return g.Vals }
