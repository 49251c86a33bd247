//go:build !unix

package nodeenv

// closeOnExec does nothing: the launcher's status pipe is a Unix
// descriptor, which other systems do not pass by number.
func closeOnExec(int) {}
