#!/bin/bash
# Rounds of three whole processes back to back (VM, 2 cores): the
# sequential program (go build), CAPE from main before this change (head)
# and after it (new); each prints its own iteration time.
# Usage: pairs3.sh ROUNDS NODES N ITERS
R=$1 P=$2 N=$3 I=$4
for r in $(seq 1 $R); do
  t=$( { /tmp/mem/jacobi-seq -n $N -iters $I >/dev/null; } 2>&1 | sed -n 's/.*iterations \([0-9.]*\)s.*/\1/p')
  echo "round $r seq nodes 1 n $N iters $I time $t"
  for b in head new; do
    t=$( { /tmp/m/cape-$b run -n $P /tmp/mem/jacobi-$b -- -n $N -iters $I >/dev/null; } 2>&1 | sed -n 's/.*iterations \([0-9.]*\)s.*/\1/p')
    echo "round $r $b nodes $P n $N iters $I time $t"
  done
done
