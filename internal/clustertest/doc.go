// Package clustertest owns the multi-host test harness: it makes K "hosts"
// on one machine, each with its own network stack and its own sshd, so that
// tests can run a CAPE job across them over ssh exactly as on a cluster.
//
// In a nutshell, it works as follows. [New] needs root, iproute2 and
// openssh-server. It generates an ed25519 client key and host key for the
// test, creates a bridge and K network namespaces joined to it by veth
// pairs (optionally shaped with tc), and starts an sshd in each namespace,
// in a private mount namespace in which the directory [Cluster].Private is
// an empty tmpfs, so that a program built there by the test is missing on
// every host and must be copied; the tmpfs holds only [Cluster].TmpDir, each
// host's own TMPDIR for ssh sessions (sshd's SetEnv), as on separate machines. It writes an ssh client configuration
// naming the hosts h1..hK. When network namespaces are unavailable it
// falls back to K sshds on loopback ports (the hosts then share the
// filesystem). Every namespace, link and sshd is removed, by PID, in
// t.Cleanup.
//
// Skips name what is missing; with CAPE_TEST_STRICT=1 a skip is a failure
// (internal/testenv).
package clustertest
