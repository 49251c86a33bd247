package homes

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/scripttest"
)

// TestInteraction runs the scripts in testdata/*.txt (etcd raft's
// interaction tests, through scripttest): each command feeds the directory
// one event, and the lines after "----" are the actions it returned (or the
// state a query printed), one a line. Lines starting with # are comments.
// Run with -update to rewrite the expected output.
func TestInteraction(t *testing.T) {
	scripttest.Run(t, func() func(string) ([]string, error) {
		var h scriptHarness
		return h.run
	})
}

// scriptHarness is a directory driven by a script.
type scriptHarness struct {
	d  *Dir
	ps int
}

// run carries out one command and returns what it printed. Commands:
//
//	job nodes=N pagesize=B                      a new job, all nodes live
//	begin seq=S site=K                          a region instance begins
//	touch node=R page=P                         a first touch
//	notice node=R [pages=P,...] [runs=...] [values=HEX]
//	runs node=R runs=...                        an answer to collect
//	replicated node=R from=H seq=V pages=P,...  a buddy confirms replicas
//	lost node=R                                 a node is lost
//	state                                       every page's record
//	resident node=R                             the pages R holds
//
// runs= lists page:offset:new/entry, offset in the page and bytes in hex;
// several runs of one page come in order.
func (h *scriptHarness) run(cmd string) ([]string, error) {
	name, a := scripttest.Fields(cmd)
	if name == "job" {
		n, err := a.MustInt("nodes")
		if err != nil {
			return nil, err
		}
		if h.ps, err = a.MustInt("pagesize"); err != nil {
			return nil, err
		}
		h.d, err = New(Config{Nodes: n, PageSize: h.ps})
		return nil, err
	}
	if h.d == nil {
		return nil, fmt.Errorf("%s before job", name)
	}
	switch name {
	case "state":
		return h.state(), nil
	case "resident":
		n, err := a.MustInt("node")
		if err != nil {
			return nil, err
		}
		return []string{fmt.Sprintf("node %d: %v", n, h.d.Resident(n))}, nil
	}
	ev, err := h.event(name, a)
	if err != nil {
		return nil, err
	}
	return h.format(h.d.Step(ev)), nil
}

// event builds the event of command name.
func (h *scriptHarness) event(name string, a scripttest.Args) (Event, error) {
	var ev Event
	var err error
	if _, ok := a["node"]; ok {
		if ev.Node, err = a.MustInt("node"); err != nil {
			return ev, err
		}
	}
	switch name {
	case "begin":
		ev.Kind = Begin
		s, err := a.MustInt("seq")
		if err != nil {
			return ev, err
		}
		ev.Seq = uint64(s)
		ev.Site, err = a.MustInt("site")
		return ev, err
	case "touch":
		ev.Kind = Touch
		ev.Page, err = a.MustInt("page")
		return ev, err
	case "notice", "runs":
		ev.Kind = Notice
		if name == "runs" {
			ev.Kind = Runs
		}
		if ev.Writes, err = h.writes(a); err != nil {
			return ev, err
		}
		if v := a["values"]; v != "" {
			ev.Values, err = hex.DecodeString(v)
		}
		return ev, err
	case "replicated":
		ev.Kind = Replicated
		s, err := a.MustInt("seq")
		if err != nil {
			return ev, err
		}
		ev.Seq = uint64(s)
		if ev.From, err = a.MustInt("from"); err != nil {
			return ev, err
		}
		ev.Pages, err = a.Ints("pages")
		return ev, err
	case "lost":
		ev.Kind = Lost
		return ev, nil
	}
	return ev, fmt.Errorf("unknown command %q", name)
}

// writes parses pages= and runs= into writes in page order.
func (h *scriptHarness) writes(a scripttest.Args) ([]Write, error) {
	pages, err := a.Ints("pages")
	if err != nil {
		return nil, err
	}
	var ws []Write
	for _, p := range pages {
		ws = append(ws, Write{Page: p})
	}
	for r := range strings.SplitSeq(a["runs"], ",") {
		if r == "" {
			continue
		}
		parts := strings.Split(r, ":")
		if len(parts) != 3 {
			return nil, fmt.Errorf("run %q: want page:offset:new/entry", r)
		}
		p, err1 := strconv.Atoi(parts[0])
		off, err2 := strconv.Atoi(parts[1])
		nw, old, _ := strings.Cut(parts[2], "/")
		data, err3 := hex.DecodeString(nw)
		entry, err4 := hex.DecodeString(old)
		if err := firstErr(err1, err2, err3, err4); err != nil {
			return nil, fmt.Errorf("run %q: %w", r, err)
		}
		i := slices.IndexFunc(ws, func(w Write) bool { return w.Page == p })
		if i < 0 {
			ws, i = append(ws, Write{Page: p}), len(ws)
		}
		ws[i].Runs = append(ws[i].Runs, delta.Run{Off: uint64(p*h.ps + off), Data: data})
		ws[i].Entry = append(ws[i].Entry, entry)
	}
	slices.SortFunc(ws, func(x, y Write) int { return x.Page - y.Page })
	return ws, nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (h *scriptHarness) state() []string {
	var out []string
	for _, p := range h.d.Pages() {
		ver, holder, copies := h.d.Version(p)
		s := fmt.Sprintf("page %d v%d home %s copies %v", p, ver, rank(holder), copies)
		if b, rv, ok := h.d.Replica(p); ok {
			s += fmt.Sprintf(" replica %d@v%d", b, rv)
		}
		out = append(out, s)
	}
	if err := h.d.Stopped(); err != nil {
		out = append(out, "stopped: "+err.Error())
	}
	return out
}

func rank(r int) string {
	if r == ZeroHome {
		return "zero"
	}
	return strconv.Itoa(r)
}

// format writes actions one a line.
func (h *scriptHarness) format(acts []Action) []string {
	var out []string
	for _, a := range acts {
		out = append(out, h.line(a))
	}
	return out
}

func (h *scriptHarness) line(a Action) string {
	switch a.Kind {
	case Share:
		return fmt.Sprintf("share %d pages %v", a.Node, a.Pages)
	case Fetch:
		if a.Zero {
			return fmt.Sprintf("fetch %d page %d zero", a.Node, a.Page)
		}
		return fmt.Sprintf("fetch %d page %d v%d from %d", a.Node, a.Page, a.Version, a.From)
	case Collect:
		return fmt.Sprintf("collect %d pages %v", a.Node, a.Pages)
	case Conflict:
		return fmt.Sprintf("conflict page %d: %v", a.Page, a.Err)
	case Merged:
		var rs []string
		for _, r := range a.Delta.Runs {
			rs = append(rs, fmt.Sprintf("%d:%d:%x", a.Page, int(r.Off)-a.Page*h.ps, r.Data))
		}
		return fmt.Sprintf("merged page %d v%d home %d to %v: %s", a.Page, a.Version, a.From, a.To, strings.Join(rs, " "))
	case Invalidate:
		return fmt.Sprintf("invalidate %d pages %v", a.Node, a.Pages)
	case Push:
		return fmt.Sprintf("push page %d v%d %d -> %v", a.Page, a.Version, a.From, a.To)
	case Replicate:
		return fmt.Sprintf("replicate %d -> %v pages %v v%d", a.From, a.To, a.Pages, a.Version)
	case Release:
		var vs []string
		for r, v := range a.Values {
			if v != nil {
				vs = append(vs, fmt.Sprintf("%d:%x", r, v))
			}
		}
		return fmt.Sprintf("release #%d values [%s]", a.Seq, strings.Join(vs, " "))
	case Discard:
		return fmt.Sprintf("discard %d", a.Node)
	case Rehome:
		return fmt.Sprintf("rehome page %d v%d -> %d", a.Page, a.Version, a.Node)
	case Recover:
		return fmt.Sprintf("recover page %d v%d from %d", a.Page, a.Version, a.From)
	case Rollback:
		return fmt.Sprintf("rollback after losing %d: pages %v", a.Node, a.Pages)
	case Error:
		return fmt.Sprintf("error: %v", a.Err)
	}
	return fmt.Sprintf("action %d", a.Kind)
}
