package durable

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/cape-go/cape/internal/ckptlog"
)

// ErrDiverged is matched (errors.Is) by the errors of a replay whose region
// differs from the logged one: another region, or another arena at its
// entry. The program is then not the logged one, or not deterministic
// outside its parallel regions.
var ErrDiverged = errors.New("the run diverged from the logged run")

// divergedError is an error matching ErrDiverged.
type divergedError struct{ msg string }

func (e *divergedError) Error() string        { return e.msg }
func (e *divergedError) Is(target error) bool { return target == ErrDiverged }

func divergedf(format string, args ...any) error {
	return &divergedError{msg: fmt.Sprintf(format, args...)}
}

// Config is what the master's log needs from the job.
type Config struct {
	Dir     string         // --checkpoint DIR
	Restart bool           // --restart: continue from the log DIR holds
	Max     int64          // --checkpoint-max, or 0 for the default bound (Bound)
	Header  ckptlog.Header // this job's arena
	Notice  func(string)   // tells the user a line (without a newline)
}

// Log is the master's checkpoint log (or the log a joining node replays).
// It is used from the program's goroutine only, except JoinerArrived and
// JoinerDecided.
type Log struct {
	dir *ckptlog.Dir
	w   *ckptlog.Writer // open until Close, even once logging stopped; nil on a joining node
	max int64           // --checkpoint-max, or 0: the default bound (Bound)
	// auto is the default bound so far (no --checkpoint-max): it grows
	// with the arena's extent in use, never shrinks.
	auto int64
	// pointSeen: the program reached a checkpoint point; told: the notice
	// of a default bound without a point was given.
	pointSeen, told bool

	rd      payloads          // restart, join: the log being replayed
	fl      *ckptlog.Follower // join: rd, followed as the master appends (Follow)
	recBuf  []byte            // restart: the storage of the record being replayed
	entries []ckptlog.Entry   // restart: the region records, by seq-first
	notice  func(string)
	first   uint64         // the first region number the log holds a record of
	logged  uint64         // regions logged (or replayed) so far
	hdr     ckptlog.Header // this arena's header
	stopErr error          // why logging stopped for good, or nil
	peak    int64          // the log's size when a restart opened it
	chain   hashChain      // which region's entry hash is chained
	// joining is set while a node that arrived to join the job has not
	// been admitted (or refused): points then compact the log only at the
	// bound, so that the node can catch up with the log (set from the
	// transport's accepting goroutine).
	joining atomic.Bool
	// Replay (restart, join): the hash of the arena right after region
	// exitSeq was injected (or the image of its point restored), for a
	// record whose entry hash is ChainedHash.
	exitHash, exitSeq uint64
	// Time spent on the log (for --stats): hashing the arena at entry
	// (mostly while the master waits for the slaves), encoding and
	// queueing records (on the program's goroutine).
	hashing, encoding time.Duration
	hashWait          time.Duration // of hashing: the time the program waited for it
	// Points (image.go): the size of the last image (kept free beside the
	// log so that a compaction never passes the bound), logging suspended
	// at the bound until the next point, an image too large for the bound
	// (reported once), compactions done, and a restart's image.
	image       int64
	suspended   bool
	tooBig      bool
	compactions int
	pending     *Pending
	images      imagePolicy // an images-only log's (images.go)
	// The arena's hash where the program first reached a region or a
	// point: the replayed log's (zero if unknown), and whether this
	// run's is known yet (then in hdr.Start).
	logStart uint64
	started  bool
	unlock   func() // releases the directory (Open's Dir.Lock), or nil
}

// RecordLimit bounds a record's payload in a log of an arena of arenaSize
// bytes: a delta of the whole arena, its run table, the values and small
// fields.
func RecordLimit(arenaSize int) int64 { return 2*int64(arenaSize) + 1<<20 }

// Open opens the master's checkpoint log in cfg.Dir: a new log, or, with
// cfg.Restart, the log there prepared for replay and opened for appending
// after its intact prefix (a missing log starts the job from the
// beginning). A directory that holds a log is refused without Restart.
func Open(cfg Config) (_ *Log, err error) {
	dir, err := ckptlog.OpenDir(cfg.Dir)
	if err != nil {
		return nil, err
	}
	unlock, err := dir.Lock()
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			unlock() // the directory stays this job's only with its log open
		}
	}()
	d := &Log{dir: dir, max: cfg.Max, notice: cfg.Notice, hdr: cfg.Header, unlock: unlock}
	s, err := dir.Scan(RecordLimit(int(cfg.Header.ArenaSize)))
	if err != nil {
		return nil, err
	}
	switch {
	case s.End > 0 && !cfg.Restart:
		return nil, fmt.Errorf("%s already holds the log of a run: add --restart to continue from it, or remove %s",
			dir.Path(), ckptlog.LogName)
	case s.End == 0:
		if cfg.Restart {
			d.notice(fmt.Sprintf("%s holds no log: the job starts from the beginning", dir.Path()))
		}
		d.w, err = dir.Create(d.hdr)
	default:
		err = d.openReplay(s)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// OpenJoin prepares the replay, on a node joining the job, of the log in
// dir that fl follows; hdr is this node's arena.
func OpenJoin(dir *ckptlog.Dir, fl *ckptlog.Follower, hdr ckptlog.Header, notice func(string)) (*Log, error) {
	d := &Log{dir: dir, notice: notice, hdr: hdr, fl: fl}
	if err := d.loadReplay(fl.Scan(), fl, "join"); err != nil {
		return nil, err
	}
	return d, nil
}

// payloads reads a scanned log's records: a ckptlog.Reader on restart, a
// ckptlog.Follower on a joining node.
type payloads interface {
	PayloadInto(buf []byte, e ckptlog.Entry) ([]byte, error)
	Close() error
}

// openReplay prepares the replay of a scanned log and opens it for
// appending after its intact prefix.
func (d *Log) openReplay(s *ckptlog.Scan) error {
	rd, err := d.dir.OpenReader()
	if err != nil {
		return err
	}
	if err := d.loadReplay(s, rd, "restart"); err != nil {
		rd.Close()
		return err
	}
	d.w, err = d.dir.Append(s.End)
	d.peak = s.End
	return err
}

// loadReplay prepares the replay of a scanned log read through rd (by a
// restart or a joining node, as op says): its regions, and the image it
// starts with, if any.
func (d *Log) loadReplay(s *ckptlog.Scan, rd payloads, op string) error {
	if s.Header.ArenaBase != d.hdr.ArenaBase || s.Header.PageSize != d.hdr.PageSize || s.Header.ArenaSize > d.hdr.ArenaSize {
		return fmt.Errorf("the log was written with an arena at %#x of %d bytes (pages of %d), this job's is at %#x of %d bytes (pages of %d)",
			s.Header.ArenaBase, s.Header.ArenaSize, s.Header.PageSize, d.hdr.ArenaBase, d.hdr.ArenaSize, d.hdr.PageSize)
	}
	if s.Header.Program != d.hdr.Program && s.Header.Program != ([32]byte{}) && d.hdr.Program != ([32]byte{}) {
		return fmt.Errorf("the log was written by another build of the program (its source, or cape, changed since): replaying it would give this program another one's results; restart the program that wrote it, or start afresh without --restart")
	}
	if s.Header.Args != d.hdr.Args && s.Header.Args != ([32]byte{}) && d.hdr.Args != ([32]byte{}) {
		return fmt.Errorf("the log was written by a run of the program with other arguments: replaying it would give that run's results for this one's; give the arguments it was run with, or start afresh (another --checkpoint directory, or remove %s)", filepath.Join(d.dir.Path(), ckptlog.LogName))
	}
	d.logStart = s.Header.Start
	if s.Size > s.End {
		d.notice(fmt.Sprintf("dropped a torn tail of %d bytes after region #%d (%s)", s.Size-s.End, s.Last(), s.Why))
	}
	d.rd = rd
	d.entries, d.first, d.logged = s.Entries, 1, s.Last()
	if len(s.Entries) > 0 && s.Entries[0].Kind == ckptlog.KindImage {
		p, err := ReadImage(d.rd, s.Entries[0])
		if err != nil {
			return err
		}
		d.pending = p
		d.entries, d.first = s.Entries[1:], p.Seq+1
		then := "; no region after it is logged"
		if s.Last() > p.Seq {
			then = fmt.Sprintf(", then replaying regions #%d to #%d", p.Seq+1, s.Last())
		}
		d.notice(fmt.Sprintf("%s: restoring the image of point %s (after region #%d) from %s%s; what the program printed in the regions the image covers is not printed again", op, p.Point, p.Seq, d.dir.Path(), then))
	} else if s.Last() == 0 {
		d.notice(fmt.Sprintf("%s: %s logs no region yet: the job starts from the beginning", op, d.dir.Path()))
	} else {
		d.notice(fmt.Sprintf("%s: replaying regions #1 to #%d from %s", op, s.Last(), d.dir.Path()))
	}
	return nil
}

// Started gives the hash of the arena where the program first reached a
// region or a checkpoint point (later calls are ignored); the images this
// log writes record it. A restart whose log was compacted checks it
// against the logged run's: an image restored in a run that made other
// state of its arguments, input or files before would print the logged
// run's results for this one's.
func (d *Log) Started(hash func() uint64) error {
	if d.started {
		return nil
	}
	h := hash()
	d.started, d.hdr.Start = true, h
	if d.logStart != 0 && h != d.logStart {
		return fmt.Errorf("the arena where the program first reached a region or a checkpoint point differs from the logged run's: the program read other input or files, or computed other state, before it; restoring the log's image would give that run's results for this one's; give the same input, or start afresh (another --checkpoint directory, or remove %s)", filepath.Join(d.dir.Path(), ckptlog.LogName))
	}
	return nil
}

// Logged is the number of the last region logged, replayed or restored
// (at Open: the last region the log holds, which a restart replays).
func (d *Log) Logged() uint64 { return d.logged }

// Pending is the image the replayed log starts with until it is restored
// (Restored), or nil.
func (d *Log) Pending() *Pending { return d.pending }

// SetEntries makes the replay read the region records entries, the first
// of which is region first's (a joining node that followed the log).
func (d *Log) SetEntries(entries []ckptlog.Entry, first uint64) {
	d.entries, d.first = entries, first
}

// Notice tells the user s through the log's notice function.
func (d *Log) Notice(s string) { d.notice(s) }

// JoinerArrived is called, from any goroutine, when a node arrives to join
// the job: it follows the log, so the writer holds no record back from now
// on, and points postpone compactions until it is admitted or refused
// (JoinerDecided).
func (d *Log) JoinerArrived() {
	d.joining.Store(true)
	if d.w != nil {
		d.w.NoHold()
	}
}

// JoinerDecided is called, from any goroutine, when the nodes that arrived
// to join were admitted or refused.
func (d *Log) JoinerDecided() { d.joining.Store(false) }

// JoinRefusal says why the log cannot let a node join now, or "".
func (d *Log) JoinRefusal() string {
	switch {
	case d.stopErr != nil:
		return fmt.Sprintf("the job's checkpoint log stopped at region #%d (%v): a joining node cannot catch up", d.logged, d.stopErr)
	case d.suspended:
		return "the job's checkpoint log is suspended at its bound until the next checkpoint point: try again later"
	case d.images.on:
		return "the job's checkpoint log holds images, not every region (distributed homes): a joining node cannot follow it; start the job with --transfer eager to admit joining nodes"
	}
	return ""
}

// stop ends logging: the log keeps the regions logged so far (the writer
// stays open until Close, which writes what is queued).
func (d *Log) stop(why error) {
	if d.stopErr != nil {
		return
	}
	d.stopErr = why
	d.notice(fmt.Sprintf("%v; the log keeps regions up to #%d (%d bytes): a restart replays those and computes the rest",
		why, d.logged, d.w.Size()))
}

// Stats is what the log did, for --stats.
type Stats struct {
	Logged      uint64 // regions logged or replayed
	Compactions int
	Size, Peak  int64         // bytes on disk at the end, and at most
	Hashing     time.Duration // hashing the arena at regions' entries
	HashWait    time.Duration // of Hashing, what the program waited
	Encoding    time.Duration // encoding and queueing records
	Syncs       int           // fdatasync calls of the writer
	Synced      time.Duration // and their time
	Superseded  int           // records a compaction superseded before they were written
}

func (s Stats) String() string {
	return fmt.Sprintf("%d regions logged, %d compactions, %d bytes on disk (peak %d); hashing %v (the program waited %v of it), encoding %v; in the writer: %d fdatasync calls taking %v, %d records superseded by a compaction before they were written",
		s.Logged, s.Compactions, s.Size, s.Peak, s.Hashing.Round(time.Microsecond), s.HashWait.Round(time.Microsecond), s.Encoding.Round(time.Microsecond), s.Syncs, s.Synced.Round(time.Microsecond), s.Superseded)
}

// Close writes what is queued, syncs and closes the log, and returns its
// statistics (ok false when the node wrote no log). A log that could not
// be written is a notice, not an error: the computation is unaffected,
// and the log's intact prefix stays a valid recovery line. Close is called
// once, last.
func (d *Log) Close() (st Stats, ok bool) {
	if d.rd != nil {
		_ = d.rd.Close() // read-only
		d.rd = nil
	}
	if d.w == nil {
		return Stats{}, false
	}
	d.tellNoImage()
	if err := d.w.Close(); err != nil && d.stopErr == nil {
		d.notice(fmt.Sprintf("%v: the log keeps a prefix of the regions", err))
	}
	if d.unlock != nil {
		d.unlock()
	}
	size, peak, syncs, synced := d.w.Stats()
	return Stats{Logged: d.logged, Compactions: d.compactions, Size: size, Peak: max(peak, d.peak),
		Hashing: d.hashing, HashWait: d.hashWait, Encoding: d.encoding,
		Syncs: syncs, Synced: synced, Superseded: d.w.Superseded()}, true
}
