package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/cape-go/cape/transport"
)

// pipeConn frames messages over a net.Pipe: u8 kind, u32 length, payload.
type pipeConn struct{ c net.Conn }

func (p pipeConn) send(kind uint8, payload []byte) error {
	b := binary.LittleEndian.AppendUint32([]byte{kind}, uint32(len(payload)))
	_, err := p.c.Write(append(b, payload...))
	return err
}

func (p pipeConn) recv() (transport.Message, error) {
	var h [5]byte
	if _, err := io.ReadFull(p.c, h[:]); err != nil {
		return transport.Message{}, err
	}
	b := make([]byte, binary.LittleEndian.Uint32(h[1:]))
	_, err := io.ReadFull(p.c, b)
	return transport.Message{Kind: h[0], Payload: b}, err
}

// samplePayload is what a simulated node sends for a start-up step.
func samplePayload(kind uint8, s Setup) []byte {
	switch kind {
	case LazyHello:
		return LazyHelloPayload(true)
	case LazyInfo:
		return LazyInfoPayload(true, 7000)
	case StdinInfo:
		return StdinInfoPayload(StdinStream, 0)
	case Replay:
		return AppendReplay(nil, ReplayPlan{Regions: 3, HasImage: true, ImageSeq: 1, Point: "main.go:3:1"})
	}
	return nil
}

// follow plays role's side of the start-up under s over the peers' conns
// (the master has one per slave, which it serves one by one, as the
// runtime does), checking every message it receives against its step.
func follow(role Role, s Setup, peers []pipeConn) error {
	for _, st := range Steps(s) {
		for _, p := range peers {
			if st.From == role {
				if err := p.send(st.Kind, samplePayload(st.Kind, s)); err != nil {
					return fmt.Errorf("%v: send %s: %w", role, Name(st.Kind), err)
				}
				continue
			}
			msg, err := p.recv()
			if err == nil {
				err = FromMaster(msg, st.Kind, 0)
			}
			if err == nil {
				_, err = Decode(JobConn, msg.Kind, msg.Payload, &Limits{})
			}
			if err != nil {
				return fmt.Errorf("%v: step %v %s: %w", role, st.Phase, Name(st.Kind), err)
			}
		}
	}
	return nil
}

// runStartup runs a master under ms and nslaves slaves under ss over
// net.Pipe, and returns their errors.
func runStartup(ms, ss Setup, nslaves int) (masterErr error, slaveErrs []error) {
	var mconns []pipeConn
	errs := make(chan error, nslaves)
	for range nslaves {
		a, b := net.Pipe()
		// Sides that disagree may both wait to receive: the deadline
		// turns that into an error.
		deadline := time.Now().Add(time.Second)
		_ = a.SetDeadline(deadline)
		_ = b.SetDeadline(deadline)
		mconns = append(mconns, pipeConn{a})
		go func() {
			err := follow(Slave, ss, []pipeConn{{b}})
			b.Close()
			errs <- err
		}()
	}
	masterErr = follow(Master, ms, mconns)
	for _, c := range mconns {
		c.c.Close()
	}
	for range nslaves {
		slaveErrs = append(slaveErrs, <-errs)
	}
	return masterErr, slaveErrs
}

// TestStartupAgrees runs a simulated master and slaves over net.Pipe, each
// following Startup: under every configuration both sides finish, every
// message is the kind the receiver expects and its payload is valid.
func TestStartupAgrees(t *testing.T) {
	for _, s := range []Setup{{}, {Lazy: true}, {Restart: true}, {Lazy: true, Restart: true}} {
		for _, n := range []int{1, 3} {
			merr, serrs := runStartup(s, s, n)
			if err := errors.Join(append(serrs, merr)...); err != nil {
				t.Errorf("%+v, %d slaves: %v", s, n, err)
			}
		}
	}
}

// TestStartupDisagreement checks that the simulation catches sides that
// do not follow the same sequence: a slave that expects a replay the
// master does not send, or one that skips the lazy set-up the master
// leads, fails.
func TestStartupDisagreement(t *testing.T) {
	for _, c := range []struct{ master, slave Setup }{
		{Setup{}, Setup{Restart: true}},
		{Setup{Lazy: true}, Setup{}},
	} {
		merr, serrs := runStartup(c.master, c.slave, 1)
		if errors.Join(append(serrs, merr)...) == nil {
			t.Errorf("master %+v and slave %+v agreed", c.master, c.slave)
		}
	}
}

// TestStartupTable checks the table's shape: every step's kind is a
// job-connection kind sent by the step's side, a phase's steps are
// contiguous, and Phases lists each phase that runs once, in order.
func TestStartupTable(t *testing.T) {
	for _, st := range Startup {
		ki, ok := Lookup(JobConn, st.Kind)
		if !ok || ki.From != st.From {
			t.Errorf("step %v %s: the table says %v sends it", st.Phase, Name(st.Kind), ki.From)
		}
	}
	for _, c := range []struct {
		s    Setup
		want []Phase
	}{
		{Setup{}, []Phase{PhaseStdin}},
		{Setup{Lazy: true}, []Phase{PhaseLazy, PhaseStdin}},
		{Setup{Restart: true}, []Phase{PhaseStdin, PhaseReplay}},
		{Setup{Lazy: true, Restart: true}, []Phase{PhaseLazy, PhaseStdin, PhaseReplay}},
	} {
		if got := Phases(c.s); !slices.Equal(got, c.want) {
			t.Errorf("Phases(%+v) = %v, want %v", c.s, got, c.want)
		}
	}
	seen := map[Phase]bool{}
	for i, st := range Startup {
		if seen[st.Phase] && Startup[i-1].Phase != st.Phase {
			t.Errorf("phase %v's steps are not contiguous", st.Phase)
		}
		seen[st.Phase] = true
	}
}
