//go:build !unix

package launch

func fdLimit() (uint64, bool) { return 0, false }
