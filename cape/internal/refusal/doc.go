// Package refusal owns the rate limit of the notices of refused
// connections. Anyone who can reach the master's port can open connections
// that fail their handshake (no token, garbage, silence); each is worth
// telling the user about, but a flood of them must not fill the job's log.
//
// In a nutshell, it works as follows. The first Burst notices of each
// Interval are printed as they come; the rest are counted and summarised
// once at the interval's end ("1,204 more connections refused in the last
// 10s (…; the last: …)"), and once more when the job ends (Flush). An
// interval opens with the first notice after the previous one closed.
//
// Window is the decision, with no clock and no lock: it takes notices and
// the ends of intervals and returns the lines to print. Limiter drives a
// Window for the runtime: it serialises the transport's goroutines, runs
// the interval's timer on a Clock (tests pass a fake one) and prints through
// a callback; it never writes to standard error itself.
//
// Lock order: Limiter.mu only; the print callback is called with it held,
// so that a summary never overtakes the notices it follows.
package refusal
