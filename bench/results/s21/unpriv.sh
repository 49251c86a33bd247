#!/bin/bash
# Rounds of three whole processes back to back (VM, 2 cores): the
# sequential Jacobi (go build of examples/jacobi), CAPE on NODES nodes as
# root, and the same as uid 65534 (vm.unprivileged_userfaultfd=0 here);
# each prints its own iteration time. Binaries: /tmp/u21/jacobi-seq (go
# build ./examples/jacobi), /tmp/u21/jacobi-cape (cape build
# ./examples/jacobi), /tmp/u21/cape (CGO_ENABLED=0 go build ./cmd/cape),
# all of the session's head, in a directory root owns (mode 0755).
# Usage: unpriv.sh ROUNDS NODES N ITERS
R=$1 P=$2 N=$3 I=$4
it() { sed -n 's/.*iterations \([0-9.]*\)s.*/\1/p'; }
for r in $(seq 1 $R); do
  t=$( { /tmp/u21/jacobi-seq -n $N -iters $I >/dev/null; } 2>&1 | it)
  echo "round $r seq nodes 1 n $N iters $I time $t"
  t=$( { /tmp/u21/cape run -n $P /tmp/u21/jacobi-cape -- -n $N -iters $I >/dev/null; } 2>&1 | it)
  echo "round $r root nodes $P n $N iters $I time $t"
  t=$( { cd /tmp && setpriv --reuid 65534 --regid 65534 --clear-groups env HOME=/tmp/u21 /tmp/u21/cape run -n $P /tmp/u21/jacobi-cape -- -n $N -iters $I >/dev/null; } 2>&1 | it)
  echo "round $r uid65534 nodes $P n $N iters $I time $t"
done
