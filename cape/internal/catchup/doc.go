// Package catchup owns the decisions of a node that joins a running job
// (cape join DIR): at each region, whether it replays the region from the
// job's log, computes it, takes its first share as a slave or waits; when
// it asks the master to be admitted (roster.Catchup); what it makes of the
// master's answer; and what it reports of its way in. It does no I/O, reads
// no clock and holds no pointer into the runtime: package cape follows the
// log, sends the request, receives the answer, sleeps and prints.
//
// In a nutshell, it works as follows. At the start of each region the
// driver calls Begin with the region's number, the regions the log holds
// and whether an image is pending (a compacted log: the regions before its
// point are computed, as on restart). It then calls Next until Next
// returns a region action (Share, Join, Compute, Replay), carrying out the
// I/O actions in between and reporting their outcome:
//
//	Follow  read the records the master appended   → Followed(replayTo, pending)
//	Ask     send the request to be admitted         → Asked()
//	Listen  look for the master's answer, no wait   → Heard(live, at) or Silent()
//	Sleep   nothing new yet: sleep Poll, then Next
//
// An I/O action not reported yet is returned again. Join means the region
// is the node's first as a slave of the live set the master sent: the
// driver calls Joined and from then on every region is Share.
//
// A Joiner is used from the program's goroutine only: it is not safe for
// concurrent use.
package catchup
