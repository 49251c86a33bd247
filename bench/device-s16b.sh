#!/bin/bash
# Second part of the sixteenth session's 16-core run (same binaries as
# bench/device-s16.sh): does a node's GOMAXPROCS matter when 2-15 nodes
# share 16 cores? CG (n=256, 500 iterations) and the active Jacobi
# (n=2048, 100 iterations) under cape run, each node's GOMAXPROCS left to
# Go (every core) or set to 2 or 4, paired (the settings alternate within
# each round); the programs' own timers. Results: $OUT/s16b.tar.
set -u
O=${OUT:-/tmp/out}; R=$O/s16b; mkdir -p $R
T=/tmp/capes16; P=$T/pb
[ -x $P/cape ] || { rm -rf $T; mkdir -p $T; xz -dc .devbin/pb.tar.xz | tar xf - -C $T; }
# t BIN LABEL ARGS: seconds of the iterations, from the master's line.
t() { local g=$1; shift; local e=(); [ $g != default ] && e=(GOMAXPROCS=$g)
  timeout 60 env "${e[@]}" "$@" 2>&1 >/dev/null | awk '!/^\[node/ && /iterations [0-9.]+s/{sub("s$","",$3); print $3}' | head -1; }
echo "round workload nodes gomaxprocs seconds" > $R/gmp.txt
for r in 1 2 3; do
  for n in 2 4 8 15; do for g in default 2 4; do
    echo "$r cg $n $g $(t $g $P/cape run -n $n $P/cg -- -n 256 -iters 500)" >> $R/gmp.txt
  done; done
  for n in 2 8 15; do for g in default 2; do
    echo "$r jacobi $n $g $(t $g $P/cape run -n $n $P/jacobi -- -n 2048 -iters 100)" >> $R/gmp.txt
  done; done
done
for g in default 2; do e=(); [ $g != default ] && e=(GOMAXPROCS=$g)
  timeout 60 env "${e[@]}" $P/cape run -n 2 --stats $P/cg -- -n 256 -iters 500 2>&1 >/dev/null | grep -E '^cape: master: region|^\[node 1\] cape: node 1: region' | tail -400 | gzip > $R/cg2-stats-$g.txt.gz
done
cat $R/gmp.txt
tar cf $O/s16b.tar -C $O s16b
