package bench

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

var stencilHeader = []string{"size", "iters", "nodes", "mode", "rep", "emulated", "node_cpus", "bandwidth", "seconds", "wall_seconds", "line",
	"compute_seconds", "max_compute_seconds", "create_seconds", "wait_seconds", "merge_seconds", "send_seconds", "comm_seconds",
	"pages_per_region", "master_sent_per_iter", "master_received_per_iter", "other_sent_per_iter", "other_received_per_iter",
	"workload", "master_peak_rss", "other_peak_rss"}

// stencilHeaderV1 is the header of the results.csv files written before
// the workloads and the peak RSS (stencil only): the first columns of
// stencilHeader.
var stencilHeaderV1 = stencilHeader[:23]

// writeStencilCSV writes the samples, one per line, with a header.
func writeStencilCSV(path string, samples []StencilSample) error {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	rows := [][]string{stencilHeader}
	for _, s := range samples {
		rows = append(rows, []string{strconv.Itoa(s.Size), strconv.Itoa(s.Iters), strconv.Itoa(s.Nodes), string(s.Mode),
			strconv.Itoa(s.Rep), strconv.FormatBool(s.Emulated), g(s.NodeCPUs), s.Bandwidth, g(s.Seconds), g(s.Wall), s.Line,
			g(s.Compute), g(s.MaxCompute), g(s.Create), g(s.Wait), g(s.Merge), g(s.Send), g(s.Comm),
			g(s.Pages), g(s.MasterSent), g(s.MasterRecv), g(s.OtherSent), g(s.OtherRecv),
			s.workload().Name, g(s.MasterRSS), g(s.OtherRSS)})
	}
	return writeRows(path, rows)
}

// writeRows writes rows to a new CSV file at path.
func writeRows(path string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	w := csv.NewWriter(f)
	w.WriteAll(rows)
	if err := errors.Join(w.Error(), f.Close()); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return nil
}

// readCSVFile reads every row of the CSV file at path, its header included.
func readCSVFile(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read results %s: %w", path, err)
	}
	return rows, nil
}

// readRows reads a CSV file whose header must be want.
func readRows(path string, want []string) ([][]string, error) {
	rows, err := readCSVFile(path)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 || !slices.Equal(rows[0], want) {
		return nil, fmt.Errorf("read results %s: header %v, want %v", path, rows[0:min(1, len(rows))], want)
	}
	return rows[1:], nil
}

// ReadStencilCSV reads a results.csv written by RunStencil, in either
// header's format.
func ReadStencilCSV(path string) ([]StencilSample, error) {
	rows, err := readRows(path, stencilHeader)
	if err != nil {
		if rows, err = readRows(path, stencilHeaderV1); err != nil {
			return nil, fmt.Errorf("%w (or the header of an older stencil run)", err)
		}
	}
	var out []StencilSample
	for i, r := range rows {
		var s StencilSample
		p := parser{row: r}
		s.Size, s.Iters, s.Nodes = p.int(0), p.int(1), p.int(2)
		s.Mode, s.Rep = Mode(r[3]), p.int(4)
		s.Emulated = r[5] == "true"
		s.NodeCPUs, s.Bandwidth = p.float(6), r[7]
		s.Seconds, s.Wall, s.Line = p.float(8), p.float(9), r[10]
		s.Compute, s.MaxCompute, s.Create, s.Wait = p.float(11), p.float(12), p.float(13), p.float(14)
		s.Merge, s.Send, s.Comm, s.Pages = p.float(15), p.float(16), p.float(17), p.float(18)
		s.MasterSent, s.MasterRecv, s.OtherSent, s.OtherRecv = p.float(19), p.float(20), p.float(21), p.float(22)
		if len(r) > len(stencilHeaderV1) {
			s.Workload, s.MasterRSS, s.OtherRSS = r[23], p.float(24), p.float(25)
		}
		if p.err != nil {
			return nil, fmt.Errorf("read results %s line %d: %w", path, i+2, p.err)
		}
		out = append(out, s)
	}
	return out, nil
}

// parser converts the fields of a CSV row, keeping the first error.
type parser struct {
	row []string
	err error
}

func (p *parser) int(i int) int {
	v, err := strconv.Atoi(p.row[i])
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("column %d: %w", i+1, err)
	}
	return v
}

func (p *parser) float(i int) float64 {
	v, err := strconv.ParseFloat(p.row[i], 64)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("column %d: %w", i+1, err)
	}
	return v
}

// ReportDir redraws the tables and figures of a results directory written
// by any cape bench benchmark (matmul, stencil and the other workloads, or
// regions), telling them apart by the header of results.csv.
func ReportDir(dir string, modelNodes int) error {
	path := filepath.Join(dir, "results.csv")
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	head, _ := bufio.NewReader(f).ReadString('\n')
	f.Close()
	head = strings.TrimSpace(head)
	switch head {
	case strings.Join(stencilHeader, ","), strings.Join(stencilHeaderV1, ","):
		samples, err := ReadStencilCSV(path)
		if err != nil {
			return err
		}
		return ReportStencil(dir, samples)
	case strings.Join(regionsHeader, ","), strings.Join(regionsHeaderV1, ","):
		samples, err := ReadRegionsCSV(path)
		if err != nil {
			return err
		}
		return ReportRegions(dir, samples)
	}
	samples, err := ReadCSV(path)
	if err != nil {
		return err
	}
	return Report(dir, samples, modelNodes)
}
