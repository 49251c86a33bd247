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
	// calling WillWrite changes only what they cost. Bytes the caller then
	// leaves unwritten are harmless.
	WillWrite(off, n int) error
}
