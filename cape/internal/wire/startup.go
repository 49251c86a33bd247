package wire

// A Cond is when a phase of the start-up runs. Every node evaluates it
// from the job's configuration, which all nodes share, so that all agree.
type Cond uint8

const (
	Always    Cond = iota
	IfLazy         // the job wants lazy transfer (--transfer lazy or auto, and it may use it)
	IfRestart      // the job restarts from a checkpoint log (--restart)
)

// Setup is the job's configuration that the start-up's conditions read.
type Setup struct {
	Lazy, Restart bool
}

// Holds reports whether c holds under s.
func (c Cond) Holds(s Setup) bool {
	switch c {
	case IfLazy:
		return s.Lazy
	case IfRestart:
		return s.Restart
	}
	return true
}

// A Phase names one part of a job's start-up, which its own code carries
// out on each side.
type Phase uint8

const (
	PhaseLazy   Phase = iota + 1 // agree on lazy transfer; start the page server and helpers
	PhaseStdin                   // decide how the job reads standard input; start its stream
	PhaseReplay                  // tell a restarted job's slaves what they replay
)

func (p Phase) String() string {
	switch p {
	case PhaseLazy:
		return "lazy transfer"
	case PhaseStdin:
		return "standard input"
	case PhaseReplay:
		return "replay"
	}
	return "unknown phase"
}

// A Step is one message of the start-up: From sends Kind (a master's to
// every slave of the job's start, one by one; a slave's to the master),
// with Seq 0. Every receiver checks each message against its step.
type Step struct {
	Phase Phase
	When  Cond
	From  Role
	Kind  uint8
}

// Startup is the sequence of messages on the job's connection between the
// transport's handshake and the first region, in order: what the master
// and every slave follow at Init. A restarted job's image is not part of
// it: it is sent later, when the program reaches the image's point.
var Startup = [...]Step{
	{PhaseLazy, IfLazy, Slave, LazyHello},
	{PhaseLazy, IfLazy, Master, LazyInfo},
	{PhaseStdin, Always, Master, StdinInfo},
	{PhaseReplay, IfRestart, Master, Replay},
}

// Phases returns the start-up's phases that run under s, in order, each
// once.
func Phases(s Setup) []Phase {
	var out []Phase
	for _, st := range Startup {
		if st.When.Holds(s) && (len(out) == 0 || out[len(out)-1] != st.Phase) {
			out = append(out, st.Phase)
		}
	}
	return out
}

// Steps returns the start-up's messages that run under s, in order.
func Steps(s Setup) []Step {
	var out []Step
	for _, st := range Startup {
		if st.When.Holds(s) {
			out = append(out, st)
		}
	}
	return out
}
