package nodeenv

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

const testHexToken = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

// slaveEnv sets the environment of rank 1 of 2 under a cape launcher, with
// no token yet.
func slaveEnv(t *testing.T) {
	for _, k := range []string{TokenFD, TokenFile, Token, Lifeline, ListenFD} {
		t.Setenv(k, "")
	}
	t.Setenv(Rank, "1")
	t.Setenv(Size, "2")
	t.Setenv(Master, "127.0.0.1:7000")
}

// TestTokenFileMode: a token file that group or others may access is
// refused, naming the file, its mode and the fix; mode 0600 is accepted.
func TestTokenFileMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions on windows")
	}
	slaveEnv(t)
	name := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(name, []byte(testHexToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(TokenFile, name)
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o660} {
		if err := os.Chmod(name, mode); err != nil {
			t.Fatal(err)
		}
		_, err := Read()
		if err == nil {
			t.Fatalf("token file of mode %04o accepted", mode)
		}
		for _, want := range []string{name, "0" + strconv.FormatUint(uint64(mode), 8), "chmod 600 " + name} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("mode %04o: error %q does not name %q", mode, err, want)
			}
		}
	}
	if err := os.Chmod(name, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Read()
	if err != nil || len(c.Token) != 32 {
		t.Fatalf("token file of mode 0600: %+v, %v", c, err)
	}
}

// TestTokenUnsetAfterRead: CAPE_TOKEN is gone from the environment once
// read, so that the program's children do not inherit it; so it is when
// the token came from elsewhere.
func TestTokenUnsetAfterRead(t *testing.T) {
	slaveEnv(t)
	t.Setenv(Token, testHexToken)
	c, err := Read()
	if err != nil || len(c.Token) != 32 {
		t.Fatalf("Read: %+v, %v", c, err)
	}
	if v, ok := os.LookupEnv(Token); ok {
		t.Fatalf("%s=%q still in the environment", Token, v)
	}
	for _, kv := range os.Environ() {
		if strings.Contains(kv, testHexToken) {
			t.Fatalf("the token is in the environment: %s", kv)
		}
	}

	name := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(name, []byte(testHexToken), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(TokenFile, name)
	t.Setenv(Token, testHexToken)
	if _, err := Read(); err != nil {
		t.Fatal(err)
	}
	if _, ok := os.LookupEnv(Token); ok {
		t.Fatalf("%s still set after the token was read from %s", Token, TokenFile)
	}
}

// TestSchedulerLoopback: with every task on one host, rank 0 listens on
// loopback only; across hosts, on every interface.
func TestSchedulerLoopback(t *testing.T) {
	for name, tc := range map[string]struct {
		env  []string
		bind string
	}{
		"slurm one host": {[]string{"SLURM_PROCID=0", "SLURM_STEP_ID=0", "SLURM_JOB_ID=41", "SLURM_STEP_NUM_TASKS=3", "SLURM_STEP_NODELIST=n07"}, "127.0.0.1"},
		"slurm hosts":    {[]string{"SLURM_PROCID=0", "SLURM_STEP_ID=0", "SLURM_JOB_ID=41", "SLURM_STEP_NUM_TASKS=3", "SLURM_STEP_NODELIST=n[07-08]"}, ""},
		"openmpi local":  {[]string{"OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=3", "OMPI_COMM_WORLD_LOCAL_SIZE=3"}, "127.0.0.1"},
		"openmpi hosts":  {[]string{"OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=3", "OMPI_COMM_WORLD_LOCAL_SIZE=2", "OMPI_MCA_orte_hnp_uri=1.0;tcp://192.0.2.2:1"}, ""},
		"pmi local":      {[]string{"PMI_RANK=0", "PMI_SIZE=2", "MPI_LOCALNRANKS=2"}, "127.0.0.1"},
		"master set":     {[]string{"PMI_RANK=0", "PMI_SIZE=2", "CAPE_MASTER=node1:7000"}, ""},
	} {
		c, err := fromScheduler(env(tc.env...))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		host, _, err := net.SplitHostPort(c.Master)
		if err != nil || host != tc.bind {
			t.Errorf("%s: rank 0 listens on %q, want host %q", name, c.Master, tc.bind)
		}
		slave, err := fromScheduler(env(append(tc.env[1:], strings.Replace(tc.env[0], "=0", "=1", 1))...))
		if err != nil {
			t.Fatalf("%s, rank 1: %v", name, err)
		}
		if tc.bind != "" && !strings.HasPrefix(slave.Master, tc.bind+":") {
			t.Errorf("%s: rank 1 dials %q, want %s", name, slave.Master, tc.bind)
		}
	}
}

// TestPortClash: a master port another program holds gives an error
// naming the port and CAPE_PORT, whether the port was derived or given.
func TestPortClash(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := strconv.Itoa(taken.Addr().(*net.TCPAddr).Port)
	c, err := fromScheduler(env("OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=3", "OMPI_COMM_WORLD_LOCAL_SIZE=3", "CAPE_PORT="+port))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Listen(c)
	if !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("Listen on a taken port: %v", err)
	}
	for _, want := range []string{"port " + port, "from CAPE_PORT", "set CAPE_PORT"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	t.Log(err)
	c.PortFrom = "derived"
	if _, err = Listen(c); err == nil || !strings.Contains(err.Error(), "derived from the openmpi job id") ||
		!strings.Contains(err.Error(), "port "+port) || !strings.Contains(err.Error(), "CAPE_PORT") {
		t.Errorf("derived port: %v", err)
	}
	c.Master = "127.0.0.1:0"
	ln, err := Listen(c)
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}
