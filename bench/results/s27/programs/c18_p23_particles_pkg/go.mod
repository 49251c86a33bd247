module example.com/p23_particles_pkg

go 1.26
