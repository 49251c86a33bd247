package nodeenv

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestExpandHostlist(t *testing.T) {
	cases := map[string][]string{
		"vm":                  {"vm"},
		"node[01-03,07],gpu5": {"node01", "node02", "node03", "node07", "gpu5"},
		"rack[1-2]-n[1-2]":    {"rack1-n1", "rack1-n2", "rack2-n1", "rack2-n2"},
		"a,b[8-10].ib":        {"a", "b8.ib", "b9.ib", "b10.ib"},
		"c[009-011]":          {"c009", "c010", "c011"},
		" x , y ":             {"x", "y"},
	}
	for in, want := range cases {
		got, err := ExpandHostlist(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ExpandHostlist(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "n[1-", "n]", "n[3-1]", "n[a-b]", "n[0-99999999]"} {
		if _, err := ExpandHostlist(bad); err == nil {
			t.Errorf("ExpandHostlist(%q): no error", bad)
		}
	}
}

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		m[k] = v
	}
	return func(k string) string { return m[k] }
}

func TestFromScheduler(t *testing.T) {
	slurm := []string{"SLURM_PROCID=2", "SLURM_STEP_ID=0", "SLURM_JOB_ID=41", "SLURM_STEP_NUM_TASKS=3",
		"SLURM_NTASKS=8", "SLURM_STEP_NODELIST=n[07-09]"}
	c, err := fromScheduler(env(slurm...))
	if err != nil {
		t.Fatal(err)
	}
	if c.Scheduler != SchedSlurm || c.Rank != 2 || c.Size != 3 || !strings.HasPrefix(c.Master, "n07:") {
		t.Fatalf("slurm: %+v", c)
	}
	c0, err := fromScheduler(env(append(slurm, "SLURM_PROCID=0")...))
	if err != nil {
		t.Fatal(err)
	}
	if c0.Job != c.Job || c0.Master != ":"+strings.TrimPrefix(c.Master, "n07:") {
		t.Fatalf("rank 0 %+v does not match rank 2 %+v", c0, c)
	}
	c, err = fromScheduler(env(append(slurm, "CAPE_MASTER=head", "CAPE_PORT=4000")...))
	if err != nil || c.Master != "head:4000" {
		t.Fatalf("CAPE_MASTER and CAPE_PORT: %+v, %v", c, err)
	}

	// A batch script has SLURM_PROCID but no step: not a task.
	if _, err := fromScheduler(env("SLURM_PROCID=0", "SLURM_NTASKS=4")); !errors.Is(err, ErrNotLaunched) {
		t.Fatalf("batch script: %v", err)
	}
	if _, err := fromScheduler(env(append(slurm, "CAPE_SCHED=none")...)); !errors.Is(err, ErrNotLaunched) {
		t.Fatalf("CAPE_SCHED=none: %v", err)
	}

	ompi := []string{"OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=3", "OMPI_COMM_WORLD_LOCAL_SIZE=3",
		"OMPI_MCA_ess_base_jobid=99", "OMPI_MCA_orte_hnp_uri=98.0;tcp://192.0.2.2,10.1.1.1:36663;tcp6://[fd00::2]:39209"}
	c, err = fromScheduler(env(ompi...))
	if err != nil || c.Scheduler != SchedOpenMPI || !strings.HasPrefix(c.Master, "127.0.0.1:") {
		t.Fatalf("openmpi, one host: %+v, %v", c, err)
	}
	c, err = fromScheduler(env(append(ompi, "OMPI_COMM_WORLD_LOCAL_SIZE=1")...))
	if err != nil || !strings.HasPrefix(c.Master, "192.0.2.2:") {
		t.Fatalf("openmpi, across hosts: %+v, %v", c, err)
	}

	if _, err := fromScheduler(env("PMI_RANK=1", "PMI_SIZE=2", "MPI_LOCALNRANKS=1")); err == nil ||
		!strings.Contains(err.Error(), "CAPE_MASTER") {
		t.Fatalf("pmi across hosts without CAPE_MASTER: %v", err)
	}
	if c, err = fromScheduler(env("PMI_RANK=1", "PMI_SIZE=2", "CAPE_MASTER=h:5000")); err != nil || c.Master != "h:5000" {
		t.Fatalf("pmi with CAPE_MASTER: %+v, %v", c, err)
	}
	c, err = fromScheduler(env("SLURM_PROCID=0", "SLURM_STEP_ID=3", "SLURM_STEP_NUM_TASKS=1"))
	if err != nil || c.Size != 1 {
		t.Fatalf("one task: %+v, %v", c, err)
	}
	if _, err := fromScheduler(env("SLURM_PROCID=3", "SLURM_STEP_ID=3", "SLURM_STEP_NUM_TASKS=2")); err == nil {
		t.Fatal("rank ≥ size accepted")
	}
}
