// Package ending owns how a node of a CAPE job ends: the errors that end a
// node without being its fault (the job ended, the job was aborted, the
// master declared the node lost), and for an error, or for the end of the
// connection to the master, the exit status and the line the node prints.
// It decides only: package cape, the runtime, has the process's one exit
// path, which finalises the node, reports, prints through its notice
// reporter and exits.
//
// In a nutshell, it works as follows. Of returns an Ending for the error
// that stops the node: ErrJobDone ends it quietly with status 0,
// ErrJobAborted with status 1, ErrLeft with status LeftExit, and a slave
// of a job that survives losses whose connection the master closed in
// order with LeftExit too; all of those finalise the node first (Finalize)
// and are not the node's failure. Any other error is (Failure): the master
// of a multi-node job tells the slaves, the launcher learns which node
// failed. MasterGone says how a slave whose connection to the master died
// ends.
package ending
