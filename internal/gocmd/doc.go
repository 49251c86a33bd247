// Package gocmd owns every run of the go command that cape makes, so that
// package translate runs nothing: it resolves a package argument (go list),
// reads the export data that type checking needs (go list -export), prepares
// a user's module to build against the runtime the cape binary carries
// (a temporary -modfile, the runtime's source extracted into a private
// cache), and builds the translation with go build -overlay.
//
// In a nutshell, Build works as follows:
//
//  1. PackageDir finds the package's directory.
//  2. The package is translated (translate.Config, with ExportImporter for
//     its imports) into a temporary directory, and an overlay maps each
//     user's file to its translation: the user's files are never modified.
//  3. newGoEnv reads `go env` and the user's go.mod and writes a temporary
//     go.mod and go.sum that require the runtime module and replace it by
//     its extracted source (modenv.go): self-contained, with its
//     dependencies inside it, for the platforms the binary carries them
//     for (capesrc.SelfContained), so that no module is looked up.
//  4. go build -modfile -overlay builds the executable.
//
// The runtime's cache directory is opened through package safedir; when
// its path is not safe, a notice says why and the runtime is extracted
// into the build's temporary directory instead.
package gocmd
