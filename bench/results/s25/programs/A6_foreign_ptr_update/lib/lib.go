package lib

// Add adds v to *p.
func Add(p *int, v int) { *p += v }
