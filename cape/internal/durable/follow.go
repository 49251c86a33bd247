package durable

import (
	"errors"
	"fmt"

	"github.com/cape-go/cape/internal/ckptlog"
)

// Follow takes, on a joining node (OpenJoin), the records the master
// appended to the log since the last look, for a node at region seq: Replay
// serves them from now on. It returns the last region the log holds.
//
// When the master compacted the log past seq (the records of regions the
// node has not replayed are gone, and the log starts with an image of a
// checkpoint point), Follow returns that image too: the node restores it at
// its point, as a restart does, and computes the regions before. adopt says
// whether the node may still do so (an error ends its joining, wrapped
// here).
func (d *Log) Follow(seq uint64, adopt func() error) (last uint64, image *Pending, err error) {
	if d.fl == nil {
		return 0, nil, errors.New("follow: the log is not a joining node's")
	}
	replaced, err := d.fl.Poll()
	if err != nil {
		return 0, nil, err
	}
	s := d.fl.Scan()
	entries := s.Entries
	first := uint64(1)
	if len(entries) > 0 && entries[0].Kind == ckptlog.KindImage {
		first, entries = entries[0].Seq+1, entries[1:]
	}
	if replaced && first > seq {
		if image, err = d.adoptImage(s, adopt); err != nil {
			return 0, nil, fmt.Errorf("the job compacted its log past region #%d, which this node has not replayed yet: %w", seq, err)
		}
	}
	d.SetEntries(entries, first)
	return s.Last(), image, nil
}

// adoptImage reads the image the compacted log s starts with, once adopt
// allows it, and tells the user.
func (d *Log) adoptImage(s *ckptlog.Scan, adopt func() error) (*Pending, error) {
	if err := adopt(); err != nil {
		return nil, err
	}
	p, err := ReadImage(d.fl, s.Entries[0])
	if err != nil {
		return nil, err
	}
	d.notice(fmt.Sprintf("join: the job compacted its log into an image of point %s after region #%d; this node restores it there and follows the log from it", p.Point, p.Seq))
	return p, nil
}
