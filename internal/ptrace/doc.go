// Package ptrace holds the ptrace(2) requests that CAPE's ptrace monitor
// needs and golang.org/x/sys does not wrap: seizing a thread with options,
// reading a stop's siginfo, and running one system call inside a stopped
// thread (syscall injection).
//
// In a nutshell, it works as follows. Each function is one request or a
// short fixed sequence of them on one thread; none keeps state. Callers
// must make every call for a tracee from the one OS thread that attached
// it (runtime.LockOSThread), because the kernel ties the tracer to a
// thread, not a process.
//
// Everything here is Linux-only; injection is amd64-only.
package ptrace
