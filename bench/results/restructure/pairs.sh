#!/bin/bash
# Paired before/after runs, whole processes, ms: the build before (B) and
# the build after (N), alternated, R rounds. Build each into its folder:
#   CGO_ENABLED=0 go build -o DIR/cape ./cmd/cape
#   CGO_ENABLED=0 DIR/cape build -o DIR/matmul ./examples/matmul   (and stencil, bench/regions)
# then: B=/path/before N=/path/after R=7 bash pairs.sh > pairs.txt
B=${B:-/work/base}; N=${N:-/work/new}; R=${R:-5}
t() { local s=$(date +%s%N); "$@" > /tmp/pairs.out 2>&1; local rc=$?; local e=$(date +%s%N); echo "$(( (e-s)/1000000 )) $rc"; }
echo "round prog build ms rc"
for r in $(seq $R); do
  for p in "matmul -n 1024" "stencil -n 1024 -iters 100" "regions -k 3000"; do
    set -- $p; prog=$1; shift
    for v in base new; do
      d=$B; [ $v = new ] && d=$N
      read ms rc < <(t $d/cape run -n 2 $d/$prog -- "$@")
      echo "$r $prog $v $ms $rc"
    done
  done
done
