// Package stdio owns a job's standard input and output: the master's
// stream of its standard input to every node, and the capture of what a
// region's units print on standard output with its ordered write. It
// holds no runtime state (no node, no region), never exits the process and
// prints nothing but the program's own output: a failure is an error
// value, or a callback the runtime gave it.
//
// In a nutshell, it works as follows.
//
// Standard input. Every node runs the program's sequential code, so every
// node must read the same standard input, while a launcher gives it to one
// process at most (cape run and srun to the master, mpirun to rank 0). So
// when the master's standard input is a file, a pipe or a socket
// ([IsStream]), the master streams it to the slaves: at Init it replaces
// its own descriptor 0 with a pipe, reads the real input in a goroutine,
// feeds its program through the pipe and sends every chunk to each slave
// over a connection of its own (to the job's port, authenticated like the
// job's, with the job's timeouts: [Config], [JobID]), where a goroutine
// queues the chunks and feeds the slave program's descriptor 0, a pipe
// too. Any other standard input (a terminal, /dev/null, none) becomes
// /dev/null on every node ([DevNullStdin]): a terminal is never read, since
// a node is not in the terminal's foreground. The master tells each slave
// which it is with the job's stdinInfo message (cape/internal/wire).
//
// The stream is flow-controlled: a slave acknowledges the bytes it wrote
// to its program's pipe, and the master reads at most a window of bytes
// ahead of the slowest consumer (its own program or a slave still
// streamed to), so each side holds at most a window of input however long
// the input and however slow a slave ([Share], [Queue]). A slave that
// ended, failed or was declared lost holds no one back.
//
// The end of the input is explicit: the master's end message carries the
// input's size, and a slave's program sees the end of its input only when
// that many bytes arrived. A stream that fails otherwise (a cut or reset
// connection, a timeout, a malformed message) is reported to the caller's
// callback with an error naming the node; it is never an end of input a
// program could take for the real one.
//
// Standard output. What a region's iterations print must appear once, in
// the order a sequential run prints it, although each node runs some of
// the iterations and only the master's output is the job's. So while a
// multi-node region computes, a node's descriptor 1 is redirected into a
// private capture file ([Capture]), and the offset in it is marked where
// each unit of work (block, chunk, section) begins. The bytes of each unit
// are encoded as segments tagged with the unit's first iteration
// ([AppendSegment]); the master, which has every committed node's
// segments, writes them in iteration order ([WriteOrdered]) and keeps the
// ordered piece for the log, which a restart prints again ([WriteLogged]).
// Output written before the first unit (code the region runs on every
// node) is the master's alone. Standard error is never captured.
//
// Lifecycle. A master makes its [Share] once at Init ([Serve], which
// accepts the slaves' input connections and calls [StartShare]) and closes
// it at the end of the job; a slave its [Queue] ([Connect], which dials the
// master's input server and calls [StartQueue]), the same. A node that captures output makes one [Capture] ([NewCapture]) and
// uses it for every region: Begin, Mark per unit, then End or Discard.
//
// Locks. Share and Queue each have one mutex, never held while sending,
// receiving, reading or writing a pipe; neither calls into the other.
// Capture has no lock: its node uses it from the goroutine running the
// region.
package stdio
