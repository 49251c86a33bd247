package nodeenv

import (
	"fmt"
	"hash/fnv"
	"net"
	"os"
	"strconv"
	"strings"
)

// Variables for programs started by a job scheduler instead of a cape
// launcher.
const (
	Port  = "CAPE_PORT"  // the master's TCP port under a scheduler (default: derived from the job id)
	Sched = "CAPE_SCHED" // "none": ignore the schedulers' variables and run as a single node
)

// Scheduler names, in Config.Scheduler.
const (
	SchedSlurm   = "slurm"   // srun: SLURM_PROCID, SLURM_STEP_NUM_TASKS, SLURM_STEP_NODELIST
	SchedOpenMPI = "openmpi" // mpirun (Open MPI): OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE
	SchedPMI     = "pmi"     // mpiexec (MPICH, Intel MPI): PMI_RANK, PMI_SIZE
)

// Derived master ports lie in [portBase, portBase+portSpan), below Linux's
// default ephemeral range (32768-60999) so that they do not collide with
// outgoing connections.
const (
	portBase = 10000
	portSpan = 20000
)

// fromScheduler fills in rank, size, job id and the master's address from
// the environment of srun or mpirun. It returns ErrNotLaunched when no
// scheduler started this process as one task of several.
//
// The master is rank 0. Its address is CAPE_MASTER when set (host:port, or
// host alone with the port from CAPE_PORT or derived); otherwise, under srun,
// the first host of SLURM_STEP_NODELIST (where srun's default distribution
// puts task 0); under mpirun with every rank on this host, 127.0.0.1; under
// Open MPI across hosts, mpirun's own host (the first of its hostfile, where
// rank 0 runs by default). The port is CAPE_PORT, or derived from the
// scheduler's job id so that every task computes the same one. Rank 0
// listens on that port on loopback when every task is on its host (srun's
// node list names one host, or mpirun's local size is the job's size), else
// on every interface.
func fromScheduler(get func(string) string) (*Config, error) {
	if get(Sched) == "none" {
		return nil, ErrNotLaunched
	}
	var (
		c          = &Config{ListenFD: -1}
		rankV      string
		sizeV      string
		jobKey     string
		masterHost string
		err        error
	)
	switch {
	case get("OMPI_COMM_WORLD_RANK") != "" && get("OMPI_COMM_WORLD_SIZE") != "":
		c.Scheduler, rankV, sizeV = SchedOpenMPI, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"
		jobKey = "ompi/" + get("OMPI_MCA_ess_base_jobid") + "/" + get("PMIX_NAMESPACE")
		if get("OMPI_COMM_WORLD_LOCAL_SIZE") == get(sizeV) {
			masterHost = loopback
		} else {
			masterHost = hnpHost(get("OMPI_MCA_orte_hnp_uri"))
		}
	case get("SLURM_PROCID") != "" && get("SLURM_STEP_ID") != "":
		// SLURM_STEP_ID is set by srun only: a batch script has
		// SLURM_PROCID=0 and SLURM_NTASKS but is not a task of a step.
		c.Scheduler, rankV, sizeV = SchedSlurm, "SLURM_PROCID", "SLURM_STEP_NUM_TASKS"
		if get(sizeV) == "" {
			sizeV = "SLURM_NTASKS"
		}
		jobKey = "slurm/" + get("SLURM_JOB_ID") + "." + get("SLURM_STEP_ID")
		if nl := get("SLURM_STEP_NODELIST"); nl != "" {
			hosts, err := ExpandHostlist(nl)
			if err != nil {
				return nil, fmt.Errorf("SLURM_STEP_NODELIST: %w", err)
			}
			masterHost = hosts[0]
			if allSame(hosts) {
				masterHost = loopback // every task on this host
			}
		}
	case get("PMI_RANK") != "" && get("PMI_SIZE") != "":
		c.Scheduler, rankV, sizeV = SchedPMI, "PMI_RANK", "PMI_SIZE"
		if get("MPI_LOCALNRANKS") == get(sizeV) {
			// Every rank on this host, children of one hydra proxy.
			masterHost = loopback
			jobKey = "pmi/" + strconv.Itoa(os.Getppid())
		}
	default:
		return nil, ErrNotLaunched
	}
	if c.Size, err = atoiVar(get, sizeV, 1); err != nil {
		return nil, err
	}
	if c.Rank, err = atoiVar(get, rankV, 0); err != nil {
		return nil, err
	}
	if c.Rank >= c.Size {
		return nil, fmt.Errorf("%s=%d is not below %s=%d", rankV, c.Rank, sizeV, c.Size)
	}
	if c.Size == 1 {
		return c, nil
	}

	if err := c.setMaster(get, masterHost, jobKey); err != nil {
		return nil, err
	}
	return c, nil
}

// setMaster sets the job id (a hash of jobKey, or of the master's address)
// and the master's address: the one rank 0 listens on, or the one the
// others dial. masterHost is rank 0's host as the scheduler tells it, or "".
func (c *Config) setMaster(get func(string) string, masterHost, jobKey string) error {
	var err error
	port := -1
	if s := get(Port); s != "" {
		if port, err = atoiVar(get, Port, 1); err != nil || port > 65535 {
			return fmt.Errorf("%s=%q: want a TCP port", Port, s)
		}
		c.PortFrom = Port
	}
	if m := get(Master); m != "" {
		host, p, err := net.SplitHostPort(m)
		if err != nil {
			host, p = strings.Trim(m, "[]"), ""
		}
		if host == "" || strings.ContainsAny(host, "[]/@ \t\n") {
			return fmt.Errorf("%s=%q: want host or host:port", Master, m)
		}
		masterHost = host
		if p != "" {
			if port, err = strconv.Atoi(p); err != nil || port < 1 || port > 65535 {
				return fmt.Errorf("%s=%q: want host:port", Master, m)
			}
			c.PortFrom = Master
		}
		if jobKey == "" {
			jobKey = "master/" + m
		}
	}
	if masterHost == "" {
		return fmt.Errorf("under %s across hosts, set %s=host:port (rank 0's host) in every task's environment", c.Scheduler, Master)
	}
	if jobKey == "" {
		jobKey = "master/" + masterHost
	}
	h := fnv.New64a()
	h.Write([]byte(jobKey))
	c.Job = h.Sum64()
	if port < 0 {
		port = portBase + int(c.Job%portSpan)
		c.PortFrom = "derived"
	}
	if c.Rank == 0 {
		bind := "" // every interface
		if isLoopback(masterHost) {
			bind = masterHost // every task is on this host: nobody else may reach the port
		}
		c.Master = net.JoinHostPort(bind, strconv.Itoa(port))
	} else {
		c.Master = net.JoinHostPort(masterHost, strconv.Itoa(port))
	}
	return nil
}

// loopback is the master's address when every task runs on one host.
const loopback = "127.0.0.1"

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func allSame(hosts []string) bool {
	for _, h := range hosts[1:] {
		if h != hosts[0] {
			return false
		}
	}
	return true
}

func atoiVar(get func(string) string, name string, min int) (int, error) {
	s := get(name)
	v, err := strconv.Atoi(s)
	if err != nil || v < min {
		return 0, fmt.Errorf("%s=%q: want an integer ≥ %d", name, s, min)
	}
	return v, nil
}

// hnpHost returns the first IPv4 host of Open MPI's OMPI_MCA_orte_hnp_uri,
// "jobid.vpid;tcp://10.0.0.1,10.0.1.1:port;tcp6://[...]:port".
func hnpHost(uri string) string {
	for _, part := range strings.Split(uri, ";") {
		if rest, ok := strings.CutPrefix(part, "tcp://"); ok {
			if i := strings.LastIndexByte(rest, ':'); i >= 0 {
				rest = rest[:i]
			}
			if first, _, _ := strings.Cut(rest, ","); first != "" {
				return first
			}
		}
	}
	return ""
}

// ExpandHostlist expands a Slurm host list such as "node[01-03,07],gpu5"
// or "rack[1-2]-n[1-2]" into host names, in order. Numeric ranges keep
// their zero padding.
func ExpandHostlist(list string) ([]string, error) {
	var out []string
	for _, item := range splitTop(list) {
		hosts, err := expandOne(item)
		if err != nil {
			return nil, fmt.Errorf("host list %q: %w", list, err)
		}
		out = append(out, hosts...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("host list %q is empty", list)
	}
	return out, nil
}

// splitTop splits s at commas outside brackets.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	out = append(out, s[start:])
	var items []string
	for _, it := range out {
		if it = strings.TrimSpace(it); it != "" {
			items = append(items, it)
		}
	}
	return items
}

// maxHostlist bounds the expansion of one host list.
const maxHostlist = 1 << 16

func expandOne(item string) ([]string, error) {
	open := strings.IndexByte(item, '[')
	if open < 0 {
		if strings.ContainsRune(item, ']') {
			return nil, fmt.Errorf("unbalanced ']' in %q", item)
		}
		return []string{item}, nil
	}
	end := strings.IndexByte(item[open:], ']')
	if end < 0 {
		return nil, fmt.Errorf("unbalanced '[' in %q", item)
	}
	end += open
	prefix, ranges, suffix := item[:open], item[open+1:end], item[end+1:]
	if strings.ContainsRune(prefix, ']') {
		return nil, fmt.Errorf("unbalanced ']' in %q", item)
	}
	tails, err := expandOne(suffix)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range strings.Split(ranges, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return nil, fmt.Errorf("bad range %q in %q", r, item)
		}
		width := len(lo)
		for n := a; n <= b; n++ {
			for _, t := range tails {
				if len(out) >= maxHostlist {
					return nil, fmt.Errorf("more than %d hosts", maxHostlist)
				}
				out = append(out, fmt.Sprintf("%s%0*d%s", prefix, width, n, t))
			}
		}
	}
	return out, nil
}
