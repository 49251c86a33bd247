package monitor

// Injector is implemented by trackers that prepare pages for writes the
// caller is about to make between regions (the uffd backend), such as the
// injection of a merged delta: told beforehand, the tracker makes the
// pages cost no write fault, where a page it keeps write-protected would
// otherwise take one (tens of microseconds on some machines) at the first
// injected byte.
//
// Its methods, like a Tracker's, are not safe for concurrent use.
type Injector interface {
	// WillWrite tells the tracker, outside a region, that the caller is
	// about to write the bytes [off, off+n) of the tracked memory before
	// the next Start. Like any write between regions, those writes never
	// appear in a Stop, and the next Start makes them the twins' content;
	// before a Start whose Hint is not Clean, calling WillWrite changes
	// only what they cost. A Clean hint says that nothing but announced
	// writes changed the memory since the last Stop, and a Start given one
	// does not look for others (it compares no hot page whose twin it
	// knows current): before it, every write must be announced, or its
	// page keeps a stale twin and a later Stop reports it written. Bytes
	// the caller then leaves unwritten are harmless.
	WillWrite(off, n int) error
}
