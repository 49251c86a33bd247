package cape

// A node that joins a running job (cape join DIR, or CAPE_JOIN=DIR), the
// joining node's side (the master's is in join.go). The node starts from
// the job's join file (package nodeenv), connects to the master under the
// first free rank from the job's size on, and runs the program as a
// restart does, every region the log holds injecting its logged result
// (durable.go; its own log reader follows the file as the master appends).
// What it does at each region, and when it asks to be admitted, is package
// catchup's decision; this file follows the log, talks to the master and
// prints.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cape-go/cape/cape/internal/catchup"
	"github.com/cape-go/cape/cape/internal/durable"
	"github.com/cape-go/cape/cape/internal/roster"
	"github.com/cape-go/cape/cape/internal/setup"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/internal/ckptlog"
	"github.com/cape-go/cape/transport"
)

// joiner is a joining node's state (package catchup); the log it follows
// is its durable.Log's.
type joiner = catchup.Joiner

// startJoining connects a joining node to the job's master and opens the
// job's log for replay.
func (n *node) startJoining(tcfg transport.Config) error {
	start := time.Now()
	dir, err := ckptlog.OpenDir(n.cfg.JoinDir)
	if err != nil {
		return fmt.Errorf("join: %w", err)
	}
	fl, err := dir.Follow(n.recordLimit())
	if err != nil {
		return fmt.Errorf("join: %w", err)
	}
	tcfg.Broadcast = transport.BroadcastStar // a joining node has no relay links
	if err := n.dialJoin(tcfg); err != nil {
		fl.Close()
		return err
	}
	d, err := durable.OpenJoin(dir, fl, n.arenaHeader(), func(s string) { notice("cape: %s: %s\n", n.name, s) })
	if err != nil {
		fl.Close()
		return fmt.Errorf("join: %w", err)
	}
	n.dur, n.replayTo, n.pending = d, d.Logged(), d.Pending()
	n.members.Live = []int{n.rank}
	n.joining = catchup.New(n.rank, start)
	return nil
}

// dialJoin connects to the master under the first rank from the job's
// size on that no node holds.
func (n *node) dialJoin(tcfg transport.Config) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for rank := tcfg.Size; rank < tcfg.Size+tcfg.MaxJoin; rank++ {
		s, err := transport.Dial(ctx, n.cfg.Master, rank, tcfg)
		if errors.Is(err, transport.ErrRankTaken) {
			continue
		}
		if err != nil {
			return fmt.Errorf("join: connect to the master at %s: %w", n.cfg.Master, err)
		}
		n.slave, n.rank, n.name = s, rank, setup.Name(rank)
		n.loopback = setup.LoopbackHost(n.cfg.Master)
		return nil
	}
	return fmt.Errorf("join: the job at %s admits no more joining nodes (%d joined)", n.cfg.Master, tcfg.MaxJoin)
}

// catchUp runs at the start of each region of a joining node: it makes the
// region one the log holds (replayed), or the node's first as a slave, and
// waits for either as long as needed (catchup.Joiner decides). Until the
// node is a slave, the runtime writes its arena between regions (replays,
// an image): the next Start is not told the stretch was clean. A joined
// slave's stretches are any slave's.
func (n *node) catchUp() {
	j := n.joining
	if !j.Slave() {
		n.gap.Dirty()
	}
	j.Begin(n.seq, n.replayTo, n.pending != nil)
	for {
		var err error
		switch j.Next(time.Now()) {
		case catchup.Share, catchup.Compute, catchup.Replay:
			return
		case catchup.Join:
			n.becomeSlave()
			return
		case catchup.Follow:
			err = n.followLog()
			j.Followed(n.replayTo, n.pending != nil)
		case catchup.Ask:
			if err = n.askToJoin(j.Request()); err == nil {
				j.Asked()
			}
		case catchup.Listen:
			err = n.hearMaster()
		case catchup.Sleep:
			time.Sleep(catchup.Poll)
		}
		if err != nil {
			fail(err)
		}
	}
}

// followLog takes the records the master appended since the last look
// (durable.Log.Follow): a node behind a compaction of the log adopts its
// image, which it restores at its point (Checkpoint), computing its regions
// until then.
func (n *node) followLog() error {
	last, image, err := n.dur.Follow(n.seq, n.joining.AdoptImage)
	if err != nil {
		return fmt.Errorf("join: %w", err)
	}
	if image != nil {
		n.pending = image
	}
	n.replayTo = max(n.replayTo, last)
	return nil
}

// askToJoin sends the request to be admitted, made once this node replayed
// regions 1 to replayed.
func (n *node) askToJoin(replayed uint64) error {
	p := wire.JoinPayload(replayed)
	if err := n.slave.Send(transport.Message{Kind: wire.Join, Seq: replayed, Payload: p}); err != nil {
		return n.joinLost(err)
	}
	return nil
}

// hearMaster takes the master's answer to the request to be admitted,
// if it came: the live set that names this node, or the end of the job.
func (n *node) hearMaster() error {
	j := n.joining
	msg, ok, err := n.slave.TryRecv()
	if err != nil {
		return n.joinLost(err)
	}
	if !ok {
		j.Silent()
		return nil
	}
	if msg.Kind == wire.Done {
		return n.joinLost(transport.ErrPeerClosed)
	}
	if j.Admitted() {
		// Admitted, this node sent nothing yet: the master only tells it
		// to leave (it straggled) or that the job ended.
		if err := fromMaster(msg, 0, msg.Seq); errors.Is(err, ErrLeft) || errors.Is(err, ErrJobAborted) {
			return err
		}
		return fmt.Errorf("join: the master sent message kind %d before this node's first region", msg.Kind)
	}
	if msg.Kind != wire.Live {
		if err := fromMaster(msg, wire.Live, msg.Seq); errors.Is(err, ErrLeft) {
			return fmt.Errorf("join: the master refused this node: %s", msg.Payload)
		} else if err != nil {
			return fmt.Errorf("join: before this node was admitted: %w", err)
		}
	}
	live, err := wire.ParseLive(msg.Payload, roster.Ranks(n.cfg.Size), n.cfg.Size, maxJoiners)
	if err == nil {
		err = j.Heard(live, msg.Seq)
	}
	if err != nil {
		return fmt.Errorf("join: the master's answer: %w", err)
	}
	return nil
}

// joinLost reports the end of the connection before admission: the job
// ended (status 0) or the master is gone.
func (n *node) joinLost(err error) error {
	if errors.Is(err, transport.ErrPeerClosed) {
		notice("cape: %s: the job ended before this node was admitted\n", n.name)
		return fmt.Errorf("%w before this node was admitted", ErrJobDone)
	}
	return fmt.Errorf("join: lost the master before this node was admitted: %w", err)
}

// becomeSlave turns the joining node into a slave of the live set, at the
// start of its first region.
func (n *node) becomeSlave() {
	live, text := n.joining.Joined(time.Now())
	n.replayTo = min(n.replayTo, n.seq-1) // from here the master sends the results
	if n.dur != nil {
		_, _ = n.dur.Close()
		n.dur = nil
	}
	n.members.Live = live
	notice("cape: %s: %s\n", n.name, text)
	go n.watchMaster()
}

// joinSummary prints, on a joined node at its end, what it took part in.
func (n *node) joinSummary() {
	if n.joining == nil {
		return
	}
	if text := n.joining.Summary(); text != "" {
		notice("cape: %s: %s\n", n.name, text)
	}
}
