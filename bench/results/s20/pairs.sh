#!/bin/bash
# Paired old/new runs of the active Jacobi sweep (VM, 2 cores): each round
# runs the binary built from main before this change (head) and after it
# (new) back to back. Usage: pairs.sh ROUNDS NODES N ITERS
R=$1 P=$2 N=$3 I=$4
for r in $(seq 1 $R); do
  for b in head new; do
    t=$( { /tmp/m/cape-$b run -n $P /tmp/mem/jacobi-$b -- -n $N -iters $I >/dev/null; } 2>&1 | sed -n 's/.*iterations \([0-9.]*\)s.*/\1/p')
    echo "round $r $b nodes $P n $N iters $I time $t"
  done
done
