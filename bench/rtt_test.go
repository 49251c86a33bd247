package bench

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoopbackRTT(t *testing.T) {
	if _, err := LoopbackRTT(0); err == nil {
		t.Error("LoopbackRTT(0): no error")
	}
	r, err := LoopbackRTT(50)
	if err != nil {
		t.Fatal(err)
	}
	if r.Fastest <= 0 || r.Fastest > r.Median || r.Median > r.Slowest {
		t.Errorf("round trips %+v: want 0 < fastest ≤ median ≤ slowest", r)
	}
}

// echoEnv makes TestEchoProcess the echo of TestProcessRTT.
const echoEnv = "CAPE_BENCH_TEST_ECHO"

// ProcessRTT runs the echo in another process (this test binary re-run as
// TestEchoProcess), and a command that does not echo is an error, not a
// hang.
func TestProcessRTT(t *testing.T) {
	ctx, echo := echoCommand(t)
	r, err := ProcessRTT(ctx, echo, 50)
	if err != nil {
		t.Fatal(err)
	}
	if r.Fastest <= 0 || r.Fastest > r.Median || r.Median > r.Slowest {
		t.Errorf("round trips %+v: want 0 < fastest ≤ median ≤ slowest", r)
	}
	if _, err := ProcessRTT(ctx, []string{"/bin/true"}, 5); err == nil {
		t.Error("ProcessRTT with /bin/true as the echo: no error")
	}
	if _, err := ProcessRTT(ctx, nil, 5); err == nil {
		t.Error("ProcessRTT with no command: no error")
	}
}

// echoCommand returns a context for a test's round trips and the command of
// their echo: this test binary re-run as TestEchoProcess.
func echoCommand(t *testing.T) (context.Context, []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	t.Setenv(echoEnv, "1")
	return ctx, []string{exe, "-test.run=^TestEchoProcess$", "--"}
}

// TestEchoProcess is the echo of TestProcessRTT: run with echoEnv set and
// the arguments -- -echo ADDR, it echoes what arrives from ADDR.
func TestEchoProcess(t *testing.T) {
	args := flag.Args()
	if os.Getenv(echoEnv) == "" || len(args) != 2 || args[0] != "-echo" {
		t.Skip("the echo of TestProcessRTT")
	}
	if err := echoFrom(args[1]); err != nil {
		t.Fatal(err)
	}
}

// TestRegionsCSVRTT checks that the rtt_us column survives a write and a
// read, that a results.csv of an older run (no rtt_us) still reads, and
// that the report puts the round trip and the ratio beside the time per
// region.
func TestRegionsCSVRTT(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.csv")
	line := "regions k=10 sum=1"
	samples := []RegionsSample{
		{K: 10, Nodes: 2, Monitor: "auto", Seconds: 0.0008, PerRegion: 80, Line: line, RTT: 20, RTTAcross: 100},
		{K: 10, Nodes: 2, Monitor: "auto", Rep: 1, Seconds: 0.0006, PerRegion: 60, Line: line, RTT: 30, RTTAcross: 180},
	}
	if err := writeRegionsCSV(path, samples); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRegionsCSV(path)
	if err != nil || len(back) != 2 || back[0].RTT != 20 || back[1].RTT != 30 || back[1].RTTAcross != 180 {
		t.Fatalf("ReadRegionsCSV: %+v, %v", back, err)
	}
	if err := ReportRegions(dir, back); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Medians: 70 µs per region, 25 µs round trip, ratio 2.8; 140 µs
	// across CPUs, ratio 0.5.
	if want := "| 2 | 70.0 [60.0–80.0] | 14286 | 25.0 [20.0–30.0] | 2.8 | 140.0 [100.0–180.0] | 0.5 | ≤ 40 |"; !strings.Contains(string(md), want) {
		t.Errorf("results.md lacks %q:\n%s", want, md)
	}

	v2 := strings.Join(regionsHeaderV2, ",") + "\n3000,2,auto,0,false,0,,0.26,0.3,87.1,regions k=3000 sum=5,25\n"
	if err := os.WriteFile(path, []byte(v2), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err = ReadRegionsCSV(path)
	if err != nil || len(back) != 1 || back[0].RTT != 25 || back[0].RTTAcross != 0 {
		t.Fatalf("ReadRegionsCSV of a run without rtt_across_us: %+v, %v", back, err)
	}
	if err := ReportRegions(dir, back); err != nil {
		t.Fatal(err)
	}
	md, _ = os.ReadFile(filepath.Join(dir, "results.md"))
	if want := "| 2 | 87.1 [87.1–87.1] | 11481 | 25.0 [25.0–25.0] | 3.5 | ≤ 40 |"; !strings.Contains(string(md), want) || strings.Contains(string(md), "across") {
		t.Errorf("results.md of a run without rtt_across_us lacks %q:\n%s", want, md)
	}

	old := strings.Join(regionsHeaderV1, ",") + "\n3000,2,auto,0,false,0,,0.26,0.3,87.1,regions k=3000 sum=5\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err = ReadRegionsCSV(path)
	if err != nil || len(back) != 1 || back[0].RTT != 0 || back[0].PerRegion != 87.1 {
		t.Fatalf("ReadRegionsCSV of an older run: %+v, %v", back, err)
	}
	if err := ReportRegions(dir, back); err != nil {
		t.Fatal(err)
	}
	md, _ = os.ReadFile(filepath.Join(dir, "results.md"))
	if want := "| 2 | 87.1 [87.1–87.1] | 11481 | ≤ 40 |"; !strings.Contains(string(md), want) || strings.Contains(string(md), "round trip") {
		t.Errorf("results.md of an older run lacks %q:\n%s", want, md)
	}
}
