package cape

import "runtime"

// goroutineID returns the number of the calling goroutine, as the first
// line of its stack trace gives it ("goroutine 18 [running]:"), or 0.
// It costs microseconds (BenchmarkGoroutineID): only programs that start
// goroutines ask (GoroutineRegions).
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) || string(b[:len(prefix)]) != prefix {
		return 0
	}
	var id uint64
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
