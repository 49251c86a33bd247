package main

import (
	"fmt"

	"example.com/p23_particles_pkg/part"
)

func main() {
	n := 200
	s := &part.System{State: part.State{Pos: make([]part.Vec3, n), Vel: make([]part.Vec3, n)}, Mass: make([]float64, n), K: 2}
	for i := 0; i < n; i++ {
		s.Pos[i] = part.Vec3{X: float64(i), Y: 0.01 * float64(i%5), Z: 0}
		s.Mass[i] = 1 + 0.1*float64(i%3)
	}
	s.Vel[0] = part.Vec3{X: 1}
	forces := make([]part.Vec3, n)
	dt := 0.01
	for step := 0; step < 100; step++ {
		//cape:parallel for
		for i := 0; i < s.N(); i++ {
			forces[i] = s.Force(i)
		}
		//cape:parallel for
		for i := 0; i < s.N(); i++ {
			s.Kick(i, forces[i], dt)
			s.Pos[i] = s.Pos[i].Add(s.Vel[i].Scale(dt))
		}
	}
	ke := 0.0
	//cape:parallel for reduction(+:ke)
	for i := 0; i < n; i++ {
		ke += float64(int64(1e9 * 0.5 * s.Mass[i] * s.Vel[i].Dot(s.Vel[i])))
	}
	fmt.Printf("ke=%.0f x0=%.12f xlast=%.12f\n", ke, s.Pos[0].X, s.Pos[n-1].X)
}
