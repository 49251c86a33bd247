package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cape-go/cape/internal/gocmd"
	"github.com/cape-go/cape/internal/nodeenv"
)

// RegionsConfig describes a run of the region-overhead benchmark (`cape
// bench regions`): bench/regions, K tiny regions in a row, under cape run
// on each node count. Of Config it uses Nodes, Reps, Out, Root, Compress,
// the emulation, Timeout, Note, Progress and Log.
type RegionsConfig struct {
	Config
	K       int    // regions per run; 0 means 3000
	Monitor string // cape run --monitor; "" means auto
}

// RegionsSample is one run of the region-overhead benchmark.
type RegionsSample struct {
	K, Nodes, Rep int
	Monitor       string
	Emulated      bool
	NodeCPUs      float64
	Bandwidth     string
	Seconds       float64 // the K regions, as the master times them
	Wall          float64 // the whole job as the harness sees it
	PerRegion     float64 // Seconds / K, in µs
	Line          string  // the output line
	// RTT is the median TCP round trip of a small message between two
	// processes on this machine, in µs, measured right after the job
	// (ProcessRTT); 0 in the results of older runs.
	RTT float64
	// RTTAcross is the same with the two processes on two different CPUs
	// (ProcessRTTAcross), where a job's busy nodes are; 0 where it was not
	// measured.
	RTTAcross float64
}

// rttTrips is how many round trips ProcessRTT times after each job.
const rttTrips = 2000

var (
	regionsHeader = []string{"k", "nodes", "monitor", "rep", "emulated", "node_cpus", "bandwidth", "seconds", "wall_seconds", "us_per_region", "line", "rtt_us", "rtt_across_us"}
	regionsLineRE = regexp.MustCompile(`(?m)^(regions k=(\d+) sum=-?\d+)$`)
	regionsTimeRE = regexp.MustCompile(`(?m)^regions: (\d+) regions in ([0-9.]+)s`)
)

// regionsHeaderV1 and V2 are the headers of the runs before the rtt_us and
// the rtt_across_us column.
var (
	regionsHeaderV1 = regionsHeader[:len(regionsHeader)-2]
	regionsHeaderV2 = regionsHeader[:len(regionsHeader)-1]
)

// RunRegions builds bench/regions, runs it on every node count of cfg for
// every repetition (the order of the node counts rotating), checks that
// every run printed the same line, writes results.csv into cfg.Out and
// returns the samples.
func RunRegions(ctx context.Context, cfg RegionsConfig) ([]RegionsSample, error) {
	if cfg.K == 0 {
		cfg.K = 3000
	}
	if cfg.K < 0 {
		return nil, fmt.Errorf("bench regions: %d regions: want ≥ 1", cfg.K)
	}
	if cfg.Monitor == "" {
		cfg.Monitor = "auto"
	}
	cfg.Sizes, cfg.Modes = []int{cfg.K}, []Mode{Incremental}
	if err := cfg.fill(); err != nil {
		return nil, fmt.Errorf("bench regions: %w", err)
	}
	bin, cleanup, err := regionsBinary(ctx, &cfg)
	if err != nil {
		return nil, fmt.Errorf("bench regions: %w", err)
	}
	defer cleanup()
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, fmt.Errorf("bench regions: %w", err)
	}
	cl, err := cfg.emulatedCluster(ctx)
	if err != nil {
		return nil, fmt.Errorf("bench regions: %w", err)
	}
	defer cl.closeLogged(cfg.Log)
	if err := writeMachine(&cfg.Config, &binaries{}); err != nil {
		return nil, fmt.Errorf("bench regions: %w", err)
	}
	if err := appendMachine(cfg.Out, fmt.Sprintf("Regions: %d per run, monitor %s.\n", cfg.K, cfg.Monitor)); err != nil {
		return nil, fmt.Errorf("bench regions: %w", err)
	}
	bar := newProgress(cfg.Progress, float64(cfg.Reps*len(cfg.Nodes)))
	defer bar.finish()
	var samples []RegionsSample
	csvPath := filepath.Join(cfg.Out, "results.csv")
	for r := 0; r < cfg.Reps; r++ {
		// The node counts rotated left by r: each runs early and late.
		nodes := append(slices.Clone(cfg.Nodes[r%len(cfg.Nodes):]), cfg.Nodes[:r%len(cfg.Nodes)]...)
		for _, k := range nodes {
			bar.start(fmt.Sprintf("%d regions ×%d", cfg.K, k))
			s, err := runRegionsJob(ctx, &cfg, cl, bin, k)
			s.Rep = r
			if err == nil {
				samples = append(samples, s)
				if s.Line != samples[0].Line {
					err = &ChecksumError{Size: cfg.K, Want: samples[0].Line, Got: s.Line,
						First: fmt.Sprintf("regions×%d", samples[0].Nodes), Bad: fmt.Sprintf("regions×%d", k)}
				}
			} else {
				err = fmt.Errorf("bench regions: %d nodes: %w", k, err)
			}
			if werr := writeRegionsCSV(csvPath, samples); werr != nil {
				return samples, errors.Join(err, fmt.Errorf("bench regions: %w", werr))
			}
			if err != nil {
				return samples, err
			}
			bar.done(1, s.Seconds)
		}
	}
	return samples, nil
}

func runRegionsJob(ctx context.Context, cfg *RegionsConfig, cl *cluster, bin string, nodes int) (RegionsSample, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	s := RegionsSample{K: cfg.K, Nodes: nodes, Monitor: cfg.Monitor}
	if cl != nil {
		s.Emulated, s.NodeCPUs, s.Bandwidth = true, cfg.NodeCPUs, cfg.Bandwidth
	}
	var stdout, stderr bytes.Buffer
	start := time.Now()
	err := capeJob(ctx, &cfg.Config, cl, cl != nil, bin, []string{"-k", strconv.Itoa(cfg.K)}, nodes,
		nodeenv.Config{Monitor: cfg.Monitor, Compress: cfg.Compress, Timeout: "60s", Transfer: cfg.Transfer, MaxLost: cfg.MaxLost}, &stdout, &stderr)
	s.Wall = time.Since(start).Seconds()
	if err != nil {
		return s, fmt.Errorf("%w\n%s", err, tail(stderr.String(), 2000))
	}
	m := regionsLineRE.FindStringSubmatch(stdout.String())
	t := regionsTimeRE.FindStringSubmatch(stderr.String())
	if m == nil || t == nil || m[2] != strconv.Itoa(cfg.K) || t[1] != m[2] {
		return s, fmt.Errorf("no `regions k=%d sum=…` line on stdout or no `regions: %d regions in Xs` on stderr\nstdout: %s\nstderr: %s",
			cfg.K, cfg.K, tail(stdout.String(), 500), tail(stderr.String(), 2000))
	}
	s.Line = m[1]
	s.Seconds, _ = strconv.ParseFloat(t[2], 64)
	s.PerRegion = 1e6 * s.Seconds / float64(cfg.K)
	rtt, err := ProcessRTT(ctx, []string{bin}, rttTrips)
	if err != nil {
		return s, err
	}
	s.RTT = float64(rtt.Median) / float64(time.Microsecond)
	across, err := ProcessRTTAcross(ctx, []string{bin}, rttTrips)
	if err != nil && !errors.Is(err, ErrNoCPUPair) {
		return s, err
	}
	s.RTTAcross = float64(across.Median) / float64(time.Microsecond)
	return s, nil
}

// regionsBinary returns bench/regions built into a temporary directory
// (and the function that removes it), or the one in cfg.Prebuilt.
func regionsBinary(ctx context.Context, cfg *RegionsConfig) (string, func(), error) {
	if cfg.Prebuilt != "" {
		bin, err := lookPrebuilt(cfg.Prebuilt, "regions")
		return bin, func() {}, err
	}
	if cfg.Root == "" {
		root, err := ModuleRoot(".")
		if err != nil {
			return "", nil, err
		}
		cfg.Root = root
	}
	dir, err := os.MkdirTemp("", "cape-bench-regions-")
	if err != nil {
		return "", nil, err
	}
	bin := filepath.Join(dir, "regions")
	var out bytes.Buffer
	if err := gocmd.Build(ctx, filepath.Join(cfg.Root, "bench", "regions"), bin, &out); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("build bench/regions: %w\n%s", err, out.String())
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

func writeRegionsCSV(path string, samples []RegionsSample) error {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	rows := [][]string{regionsHeader}
	for _, s := range samples {
		rows = append(rows, []string{strconv.Itoa(s.K), strconv.Itoa(s.Nodes), s.Monitor, strconv.Itoa(s.Rep),
			strconv.FormatBool(s.Emulated), g(s.NodeCPUs), s.Bandwidth, g(s.Seconds), g(s.Wall), g(s.PerRegion), s.Line, g(s.RTT), g(s.RTTAcross)})
	}
	return writeRows(path, rows)
}

// ReadRegionsCSV reads a results.csv written by RunRegions, with or
// without the round-trip columns.
func ReadRegionsCSV(path string) ([]RegionsSample, error) {
	var rows [][]string
	err := errors.New("no header")
	for _, h := range [][]string{regionsHeader, regionsHeaderV2, regionsHeaderV1} {
		if rows, err = readRows(path, h); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w (or the header of an older regions run)", err)
	}
	var out []RegionsSample
	for i, r := range rows {
		p := parser{row: r}
		s := RegionsSample{K: p.int(0), Nodes: p.int(1), Monitor: r[2], Rep: p.int(3), Emulated: r[4] == "true",
			NodeCPUs: p.float(5), Bandwidth: r[6], Seconds: p.float(7), Wall: p.float(8), PerRegion: p.float(9), Line: r[10]}
		if len(r) > len(regionsHeaderV1) { // rtt_us
			s.RTT = p.float(11)
		}
		if len(r) > len(regionsHeaderV2) { // rtt_across_us
			s.RTTAcross = p.float(12)
		}
		if p.err != nil {
			return nil, fmt.Errorf("read results %s line %d: %w", path, i+2, p.err)
		}
		out = append(out, s)
	}
	return out, nil
}

// RegionsFigure is the file ReportRegions writes besides results.md.
const RegionsFigure = "regions_us_per_region.svg"

// regionGoal is issue 29's goal for the time of an empty region, in µs:
// 40 on 2 local nodes, and beyond, growth no faster than log₂P round
// trips (which a single figure cannot say).
var regionGoal = map[int]string{2: "≤ 40"}

// ReportRegions writes results.md and the figure of a regions run into dir.
func ReportRegions(dir string, samples []RegionsSample) error {
	if len(samples) == 0 {
		return errors.New("report: no samples")
	}
	byNodes := map[int][]float64{}
	rtts := []rttColumn{
		{name: "TCP round trip µs", ratio: "region/RTT", of: func(s RegionsSample) float64 { return s.RTT }, by: map[int][]float64{},
			note: " TCP round trip: the median round trip of a 64-byte message over loopback TCP between two processes, " +
				"measured right after each job (bench.ProcessRTT); region/RTT is the ratio of the two medians."},
		{name: "RTT across CPUs µs", ratio: "region/RTT across", of: func(s RegionsSample) float64 { return s.RTTAcross }, by: map[int][]float64{},
			note: " RTT across CPUs: the same with the two processes bound to two different CPUs, as the nodes of a job " +
				"computing on every core are (bench.ProcessRTTAcross): an unbound pair may share one CPU, where a wake-up " +
				"is a context switch rather than a wake-up of another CPU."},
	}
	var nodes []int
	for _, s := range samples {
		if _, ok := byNodes[s.Nodes]; !ok {
			nodes = append(nodes, s.Nodes)
		}
		byNodes[s.Nodes] = append(byNodes[s.Nodes], s.PerRegion)
		for _, c := range rtts {
			if v := c.of(s); v > 0 {
				c.by[s.Nodes] = append(c.by[s.Nodes], v)
			}
		}
	}
	slices.Sort(nodes)
	// Runs before a round trip was measured keep their report.
	rtts = slices.DeleteFunc(rtts, func(c rttColumn) bool { return len(c.by) == 0 })
	var notes, head, rule string
	for _, c := range rtts {
		notes += c.note
		head += fmt.Sprintf(" %s | %s |", c.name, c.ratio)
		rule += "---|---|"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# cape bench regions results\n\nThe fixed cost of a parallel region: bench/regions runs %d regions in a row, "+
		"each a parallel for writing 64 int64s (one page), under cape run -n N (monitor %s); "+
		"µs per region = the master's time of the regions / %d. Median [min–max] over the repetitions.%s\n\n"+
		"| nodes | µs per region | regions per second |%s goal (issue 29) |\n|---|---|---|%s---|\n",
		samples[0].K, samples[0].Monitor, samples[0].K, notes, head, rule)
	c := &chart{title: fmt.Sprintf("Time per empty region (%d regions per run)", samples[0].K), xlabel: "nodes", ylabel: "µs per region", log2x: true,
		note: "points: medians with min–max"}
	var pts []point
	for _, k := range nodes {
		v := byNodes[k]
		m := median(v)
		cells := ""
		for _, c := range rtts {
			if r := c.by[k]; len(r) > 0 {
				cells += fmt.Sprintf(" %.1f [%.1f–%.1f] | %.1f |", median(r), slices.Min(r), slices.Max(r), m/median(r))
			} else {
				cells += " – | – |"
			}
		}
		fmt.Fprintf(&b, "| %d | %.1f [%.1f–%.1f] | %.0f |%s %s |\n", k, m, slices.Min(v), slices.Max(v), 1e6/m,
			cells, orDefault(regionGoal[k], "–"))
		pts = append(pts, point{float64(k), m, slices.Min(v), slices.Max(v)})
	}
	c.series = append(c.series, series{name: "cape " + samples[0].Monitor, color: modeColor[Incremental], points: pts})
	if err := os.WriteFile(filepath.Join(dir, RegionsFigure), []byte(c.svg()), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "results.md"), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// rttColumn is a round trip ReportRegions puts beside the time per region:
// its samples by node count.
type rttColumn struct {
	name, ratio, note string
	of                func(RegionsSample) float64
	by                map[int][]float64
}
