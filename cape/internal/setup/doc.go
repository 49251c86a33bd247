// Package setup owns the decisions a node takes when it joins a job: from
// the launcher's configuration (nodeenv.Config) and what the runtime brings
// (what the translator proved about the program, the arena's size), it
// computes a Plan — the node's role and name, the services it starts (the
// regions' output capture, the lifeline and master watchdogs, lazy
// transfer, the admission of joining nodes), its monitor and checkpoint
// mode, its compression, its transport settings and the start-up phases it
// follows — and it decides the set-up's later questions once their answers
// are known: lazy transfer's agreement between the master and the slaves,
// the compression between nodes of one machine, what a failed input stream
// does to the job. It opens no socket, starts no goroutine, reads no clock
// or environment, prints nothing and never ends the process: package cape
// carries the plan out and reports the notices it is handed.
//
// In a nutshell, it works as follows. Init reads the configuration and
// calls New, which validates the settings a multi-node job uses (an
// unknown compression or transfer mode is an error) and returns the Plan.
// The runtime then creates what the plan names, in the plan's order: a
// single node stops after its output capture and, with a checkpoint log,
// its tracker; a master listens and waits for the slaves; a slave dials
// the master; a joining node dials the running job. Master and slaves then
// follow Plan.Startup, the phases of the start-up sequence (wire.Startup)
// that the job's configuration selects, which every node computes alike.
// In the lazy transfer phase each slave tells the master whether its
// tracker can serve lazy transfer; the master decides with AgreeLazy and
// answers; each slave acts on the answer with SlaveLazy.
//
// A Plan is a value: it is not changed once New returns, and is safe for
// concurrent reads.
package setup
