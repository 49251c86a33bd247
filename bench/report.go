package bench

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

var csvHeader = []string{"size", "nodes", "mode", "rep", "emulated", "node_cpus", "bandwidth", "seconds", "wall_seconds", "checksum",
	"create_seconds", "exchange_seconds", "delta_bytes", "sent_bytes", "received_bytes", "max_compute_seconds", "comm_seconds",
	"compute_seconds", "wait_seconds", "merge_seconds", "send_seconds"}

// csvColumns are the header lengths ReadCSV accepts: files written before
// comm_seconds, before the exchange split, and now.
var csvColumns = []int{16, 17, len(csvHeader)}

// writeCSV writes the samples, one per line, with a header.
func writeCSV(path string, samples []Sample) error {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	rows := [][]string{csvHeader}
	for _, s := range samples {
		rows = append(rows, []string{strconv.Itoa(s.Size), strconv.Itoa(s.Nodes), string(s.Mode), strconv.Itoa(s.Rep),
			strconv.FormatBool(s.Emulated), g(s.NodeCPUs), s.Bandwidth, g(s.Seconds), g(s.Wall), s.Checksum,
			g(s.Create), g(s.Exchange), strconv.FormatInt(s.DeltaBytes, 10), strconv.FormatInt(s.Sent, 10),
			strconv.FormatInt(s.Received, 10), g(s.MaxCompute), g(s.Comm),
			g(s.Compute), g(s.Wait), g(s.Merge), g(s.Send)})
	}
	return writeRows(path, rows)
}

// ReadCSV reads a results.csv written by Run.
func ReadCSV(path string) ([]Sample, error) {
	rows, err := readCSVFile(path)
	if err != nil {
		return nil, err
	}
	// Older files lack the last columns (csvColumns).
	if len(rows) == 0 || !slices.ContainsFunc(csvColumns, func(k int) bool { return slices.Equal(rows[0], csvHeader[:k]) }) {
		return nil, fmt.Errorf("read results %s: not a cape bench results.csv (header %v)", path, rows[0:min(1, len(rows))])
	}
	var out []Sample
	for i, r := range rows[1:] {
		var s Sample
		var errs [18]error
		s.Size, errs[0] = strconv.Atoi(r[0])
		s.Nodes, errs[1] = strconv.Atoi(r[1])
		s.Mode = Mode(r[2])
		s.Rep, errs[2] = strconv.Atoi(r[3])
		s.Emulated, errs[3] = strconv.ParseBool(r[4])
		s.NodeCPUs, errs[4] = strconv.ParseFloat(r[5], 64)
		s.Bandwidth = r[6]
		s.Seconds, errs[5] = strconv.ParseFloat(r[7], 64)
		s.Wall, errs[6] = strconv.ParseFloat(r[8], 64)
		s.Checksum = r[9]
		s.Create, errs[7] = strconv.ParseFloat(r[10], 64)
		s.Exchange, errs[8] = strconv.ParseFloat(r[11], 64)
		s.DeltaBytes, errs[9] = strconv.ParseInt(r[12], 10, 64)
		s.Sent, errs[10] = strconv.ParseInt(r[13], 10, 64)
		s.Received, errs[11] = strconv.ParseInt(r[14], 10, 64)
		s.MaxCompute, errs[12] = strconv.ParseFloat(r[15], 64)
		if len(r) > 16 {
			s.Comm, errs[13] = strconv.ParseFloat(r[16], 64)
		} else {
			s.Comm = s.Create + s.Exchange
		}
		if len(r) >= len(csvHeader) {
			var es [4]error
			s.Compute, es[0] = strconv.ParseFloat(r[17], 64)
			s.Wait, es[1] = strconv.ParseFloat(r[18], 64)
			s.Merge, es[2] = strconv.ParseFloat(r[19], 64)
			s.Send, es[3] = strconv.ParseFloat(r[20], 64)
			errs[14] = errors.Join(es[:]...)
		}
		for _, e := range errs {
			if e != nil {
				return nil, fmt.Errorf("read results %s line %d: %w", path, i+2, e)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// writeMachine records the machine, the toolchains and the configuration in
// machine.md.
func writeMachine(cfg *Config, bins *binaries) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Machine and configuration\n\n")
	fmt.Fprintf(&b, "- date: %s\n", time.Now().UTC().Format(time.RFC3339))
	if out, err := exec.Command("lscpu").Output(); err == nil {
		for _, l := range strings.Split(string(out), "\n") {
			k, v, ok := strings.Cut(l, ":")
			switch strings.TrimSpace(k) {
			case "Model name", "CPU(s)", "Thread(s) per core", "Hypervisor vendor", "L2 cache", "L3 cache":
				if ok {
					fmt.Fprintf(&b, "- %s: %s\n", strings.TrimSpace(k), strings.TrimSpace(v))
				}
			}
		}
	}
	if rel, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		fmt.Fprintf(&b, "- kernel: %s %s\n", runtime.GOOS, strings.TrimSpace(string(rel)))
	}
	if mem, err := os.ReadFile("/proc/meminfo"); err == nil {
		fmt.Fprintf(&b, "- memory: %s\n", strings.Join(strings.Fields(strings.SplitN(string(mem), "\n", 2)[0])[1:], " "))
	}
	fmt.Fprintf(&b, "- Go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	first := func(name string, args ...string) string {
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			return "not installed"
		}
		return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	}
	fmt.Fprintf(&b, "- gcc: %s\n", first("gcc", "--version"))
	if bins.mpirun != "" {
		fmt.Fprintf(&b, "- MPI: %s\n", first(bins.mpirun, "--version"))
	}
	fmt.Fprintf(&b, "\nConfiguration: sizes %v, nodes %v, modes %s, %d repetitions, CAPE compression %s, CAPE transfer %s, --max-lost %d.\n",
		cfg.Sizes, cfg.Nodes, joinModes(cfg.Modes), cfg.Reps, cfg.Compress, orEager(cfg.Transfer), cfg.MaxLost)
	if cfg.Emulate {
		fmt.Fprintf(&b, "Emulated cluster: %.3g CPU per node, link rate %s (see RESULTS.md, \"The emulated cluster\").\n", cfg.NodeCPUs, orDefault(cfg.Bandwidth, "unlimited"))
	} else {
		fmt.Fprintf(&b, "Nodes are local processes on this machine sharing its %d cores and its loopback.\n", runtime.NumCPU())
	}
	if cfg.Note != "" {
		fmt.Fprintf(&b, "\nCommand: `%s`\n", cfg.Note)
	}
	if err := os.WriteFile(filepath.Join(cfg.Out, "machine.md"), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write machine.md: %w", err)
	}
	return nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
