// Package capesrc carries the source of the CAPE runtime (package cape and
// the packages it imports from this module) inside every program that
// imports it, so that the cape command can build a user's package in any
// module, offline, without the user's go.mod naming this module: the
// translator writes these files into a private cache directory and builds
// with a temporary modfile that replaces the module by that directory.
//
// The list of directories below must cover every package of this module
// that package cape imports, directly or not; TestRuntimeSourceComplete
// checks it against `go list -deps`.
package capesrc

import "embed"

// ModulePath is the module path of the runtime the generated code imports.
const ModulePath = "github.com/cape-go/cape"

// Files holds go.mod, go.sum and the Go files of the runtime's packages,
// tests included (the extraction skips them), and in DepsDir the files the
// runtime needs from other modules (see SelfContained).
//
//go:embed go.mod go.sum _runtimedeps
//go:embed cape/*.go cape/internal/*/*.go monitor/*.go delta/*.go transport/*.go
//go:embed internal/arena/*.go internal/ckptlog/*.go internal/nodeenv/*.go internal/ptrace/*.go internal/uffd/*.go internal/pager/*.go internal/pagemem/*.go internal/safedir/*.go
var Files embed.FS
