package allocs

import (
	"fmt"
	"runtime"
	"strings"
)

// Caller returns file:line of the user's call that made an allocation:
// starting from the caller of Caller's caller (skip frames further up), the
// first frame whose function is not in the package whose import path is
// pkg, or that is in a _test.go file. It returns "unknown" when every frame
// is in pkg.
func Caller(skip int, pkg string) string {
	pcs := make([]uintptr, 16)
	k := runtime.Callers(skip+3, pcs)
	frames := runtime.CallersFrames(pcs[:k])
	prefix := pkg + "."
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, prefix) || strings.HasSuffix(f.File, "_test.go") {
			return fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		if !more {
			return "unknown"
		}
	}
}
