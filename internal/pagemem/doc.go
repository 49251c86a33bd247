// Package pagemem owns the node's madvise(2) calls on memory it is about to
// use: populating fresh pages in one call instead of a fault each, and
// dropping pages, both without waking the Go runtime's monitor thread for
// the small ranges a parallel region deals in; and counting the page
// faults that touching memory costs.
package pagemem
