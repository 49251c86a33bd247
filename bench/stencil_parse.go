package bench

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"
)

var (
	haloStatsRE = regexp.MustCompile(`(?m)^(?:halogo|halo-c|mpwork): rank (\d+): compute ([0-9.]+)s, communication ([0-9.]+)s; per iteration sent (\d+), received (\d+) bytes`)

	// One region of cape run --stats, from any node (a slave's line is
	// prefixed "[node N] " by the launcher); its fields are read one by
	// one below, so that fields added to the line later do not break it.
	regionStatsRE = regexp.MustCompile(`(?m)cape: (master|node \d+): region \S+ #(\d+):.*$`)
	statFieldREs  = map[string]*regexp.Regexp{
		"compute":  regexp.MustCompile(`[:,] compute (\S+?),`),
		"create":   regexp.MustCompile(`, create (\S+) \((\d+) pages`),
		"wait":     regexp.MustCompile(`= wait (\S+) \+`),
		"merge":    regexp.MustCompile(`merge/inject (\S+) \+`),
		"send":     regexp.MustCompile(`\+ send (\S+) \(`),
		"exchange": regexp.MustCompile(`exchange (\S+)`),
		"bytes":    regexp.MustCompile(`sent (\d+), received (\d+) bytes`),
	}
)

// rssRE matches bench/rsswrap's line, from a CAPE slave prefixed
// "[node N] " by the launcher, from a baseline's rank with "rank R: ".
var rssRE = regexp.MustCompile(`(?m)^(?:\[node (\d+)\] )?bench: (?:rank (\d+): )?peak rss (\d+) kB$`)

// parseRSS sets the peak RSS of s from rsswrap's lines: rank 0's (the
// master's) and the largest of the others'.
func (s *StencilSample) parseRSS(stderr string) {
	for _, m := range rssRE.FindAllStringSubmatch(stderr, -1) {
		kb, _ := strconv.ParseFloat(m[3], 64)
		if (m[1] == "" || m[1] == "0") && (m[2] == "" || m[2] == "0") {
			s.MasterRSS = max(s.MasterRSS, kb*1024)
			continue
		}
		s.OtherRSS = max(s.OtherRSS, kb*1024)
	}
}

// nodeStats are one node's totals over the regions of a CAPE run.
type nodeStats struct {
	regions                                      int
	compute, create, wait, merge, send, exchange float64
	pages, sent, received                        int64
}

// parseRegionStats sums the --stats lines of every node; the master is "master".
func parseRegionStats(stderr string, setup int) (map[string]*nodeStats, error) {
	out := map[string]*nodeStats{}
	for _, m := range regionStatsRE.FindAllStringSubmatch(stderr, -1) {
		line := m[0]
		ns := out[m[1]]
		if ns == nil {
			ns = &nodeStats{}
			out[m[1]] = ns
		}
		ns.regions++
		if k, err := strconv.Atoi(m[2]); err == nil && k <= setup {
			continue // a region before the iterations: counted, not summed
		}
		dur := func(field string, dst *float64) error {
			f := statFieldREs[field].FindStringSubmatch(line)
			if f == nil {
				return nil // an older or newer --stats without it
			}
			d, err := time.ParseDuration(f[1])
			if err != nil {
				return fmt.Errorf("%s of %q: %w", field, line, err)
			}
			*dst += d.Seconds()
			return nil
		}
		err := errors.Join(dur("compute", &ns.compute), dur("create", &ns.create), dur("wait", &ns.wait),
			dur("merge", &ns.merge), dur("send", &ns.send), dur("exchange", &ns.exchange))
		if err != nil {
			return nil, err
		}
		if f := statFieldREs["create"].FindStringSubmatch(line); f != nil {
			p, _ := strconv.ParseInt(f[2], 10, 64)
			ns.pages += p
		}
		f := statFieldREs["bytes"].FindStringSubmatch(line)
		if f == nil {
			return nil, fmt.Errorf("no byte counts in --stats line %q", line)
		}
		s, _ := strconv.ParseInt(f[1], 10, 64)
		r, _ := strconv.ParseInt(f[2], 10, 64)
		ns.sent += s
		ns.received += r
	}
	return out, nil
}

// parseStencil fills the output line, the time and the statistics of s
// from a variant's output.
func parseStencil(s *StencilSample, stdout, stderr string) error {
	w := s.workload()
	m := w.lineRE.FindStringSubmatch(stdout)
	if m == nil {
		return fmt.Errorf("no `%s` line on stdout", w.lineRE)
	}
	if m[2] != strconv.Itoa(s.Size) || m[3] != strconv.Itoa(s.Iters) {
		return fmt.Errorf("output is for n=%s iters=%s, want n=%d iters=%d", m[2], m[3], s.Size, s.Iters)
	}
	s.Line = m[1]
	t := w.timeRE.FindStringSubmatch(stderr)
	if t == nil {
		return fmt.Errorf("no `%s` line on stderr", w.timeRE)
	}
	s.parseRSS(stderr)
	var err error
	if s.Seconds, err = strconv.ParseFloat(t[1], 64); err != nil {
		return fmt.Errorf("iterations time %q: %w", t[1], err)
	}
	switch s.Mode {
	case Incremental, Complete:
		return s.capeStats(stderr)
	case HaloGo, HaloC, MPGo:
		return s.haloStats(stderr)
	}
	return nil
}

func (s *StencilSample) capeStats(stderr string) error {
	w := s.workload()
	nodes, err := parseRegionStats(stderr, w.SetupRegions)
	if err != nil {
		return err
	}
	if s.Nodes > 1 && s.Iters > 0 && len(nodes) != s.Nodes {
		return fmt.Errorf("cape run --stats lines from %d node(s), want %d", len(nodes), s.Nodes)
	}
	want := s.Iters*w.RegionsPerIter + w.SetupRegions
	var others int
	for name, ns := range nodes {
		if ns.regions != want && (!w.MayStop || ns.regions > want) {
			before := ""
			if w.SetupRegions > 0 {
				before = fmt.Sprintf(", %d before", w.SetupRegions)
			}
			return fmt.Errorf("%s reported %d regions, want %d (%d per iteration%s)", name, ns.regions, want, w.RegionsPerIter, before)
		}
		s.MaxCompute = max(s.MaxCompute, ns.compute)
		// Per iteration run: a workload that may stop early (cg, once
		// converged) ran fewer than it was asked for.
		iters := float64(ns.regions-w.SetupRegions) / float64(w.RegionsPerIter)
		if iters == 0 {
			iters = float64(max(s.Iters, 1))
		}
		per := func(b int64) float64 { return float64(b) / iters }
		if name == "master" {
			s.Compute, s.Create, s.Wait, s.Merge, s.Send = ns.compute, ns.create, ns.wait, ns.merge, ns.send
			s.Comm = ns.create + ns.exchange
			s.Pages = float64(ns.pages) / float64(max(ns.regions-w.SetupRegions, 1))
			s.MasterSent, s.MasterRecv = per(ns.sent), per(ns.received)
			continue
		}
		others++
		s.OtherSent += per(ns.sent)
		s.OtherRecv += per(ns.received)
	}
	if others > 0 {
		s.OtherSent /= float64(others)
		s.OtherRecv /= float64(others)
	}
	return nil
}

func (s *StencilSample) haloStats(stderr string) error {
	ranks := haloStatsRE.FindAllStringSubmatch(stderr, -1)
	if len(ranks) != s.Nodes {
		return fmt.Errorf("statistics from %d rank(s), want %d", len(ranks), s.Nodes)
	}
	var others int
	for _, r := range ranks {
		compute, _ := strconv.ParseFloat(r[2], 64)
		comm, _ := strconv.ParseFloat(r[3], 64)
		sent, _ := strconv.ParseFloat(r[4], 64)
		recv, _ := strconv.ParseFloat(r[5], 64)
		s.MaxCompute = max(s.MaxCompute, compute)
		if r[1] == "0" {
			s.Compute, s.Comm, s.MasterSent, s.MasterRecv = compute, comm, sent, recv
			continue
		}
		others++
		s.OtherSent += sent
		s.OtherRecv += recv
	}
	if others > 0 {
		s.OtherSent /= float64(others)
		s.OtherRecv /= float64(others)
	}
	return nil
}

// workload returns the Workload s is a sample of.
func (s *StencilSample) workload() *Workload {
	if w := WorkloadByName(s.Workload); w != nil {
		return w
	}
	return Stencil
}
