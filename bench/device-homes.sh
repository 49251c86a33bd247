#!/bin/bash
# The 16-core run of issue 29's distributed homes, on a machine without a
# Go toolchain, one core per node up to 15 nodes: the active-grid Jacobi,
# CG, 3-D heat, power iteration and edge-heated stencil workloads of cape
# bench under --transfer homes beside their sequential runs and
# message-passing baselines; matmul (Table I, Figs. 4-6) as cape run runs
# it by default; and the empty region under homes and lazy transfer. Build
# the binaries first (.devbin is git-ignored):
#   P=$(mktemp -d)/pb; mkdir -p $P
#   CGO_ENABLED=0 go build -ldflags='-s -w' -o $P/cape ./cmd/cape
#   CGO_ENABLED=0 $P/cape bench build $P
#   CGO_ENABLED=0 $P/cape build -o $P/regions ./bench/regions
#   git rev-parse HEAD > $P/commit
#   tar cf - -C $(dirname $P) pb | xz -6 > .devbin/pb.tar.xz
# then: bash bench/device-homes.sh (about 8 minutes). Results: $OUT/homes.tar,
# which grows workload by workload (a run cut short keeps what it did).
# MAXLOST (default -1, cape run's) is the CAPE runs' --max-lost: -1 has each
# slave copy what it writes to a buddy before its notice (losses survived),
# 0 copies nothing (the figures of the twelfth session).
set -u
O=${OUT:-/tmp/out}; R=$O/r; mkdir -p $R
T=${TMPDIR:-/tmp}/capehomes; rm -rf $T; mkdir -p $T
xz -dc .devbin/pb.tar.xz | tar xf - -C $T
P=$T/pb
{ nproc; uname -r; id; grep 'model name' /proc/cpuinfo | head -1; free -g | head -2; cat $P/commit 2>/dev/null; } > $R/machine.txt
N=${NODES:-1,2,4,8,15}
# ONLY="cg power" runs just those cape bench workloads (and the regions
# unless it names no "regions").
ML=${MAXLOST:--1}
b() { local w=$1 t=$2 r=$3; shift 3; [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $w "* ]] && return; echo "== $w $(date +%T)"; timeout $t $P/cape bench $w --prebuilt $P --nodes $N --reps $r --max-lost $ML --no-progress --out $R/$w "$@" > $R/$w.log 2>&1; echo "rc $?"; tail -2 $R/$w.log; tar rf $O/homes.tar -C $O r/$w r/$w.log; }
b jacobi 130 3 --transfer homes --sizes 2048 --iters 100 --modes seq,incremental,halo-go
b cg 40 3 --transfer homes --sizes 256 --iters 500 --modes seq,incremental,mp-go
b heat3d 60 2 --transfer homes --sizes 192 --iters 50 --modes seq,incremental,mp-go
b power 40 2 --transfer homes --sizes 6144 --iters 20 --modes seq,incremental,mp-go
b stencil 100 2 --transfer homes --sizes 2048 --iters 100 --modes seq,incremental,halo-go
MM=seq,goroutines,omp-c,complete,incremental,mpi-go
b matmul 140 2 --sizes 512,768,1024 --modes $MM
# The empty region: microseconds per region (the master's time / 3000).
if [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" regions "* ]]; then
echo "round transfer nodes us_per_region" > $R/regions.txt
for r in 1 2; do for n in 2 4 8 15; do for m in homes lazy; do
  us=$(timeout 20 $P/cape run -n $n --transfer $m --max-lost $ML $P/regions -- -k 3000 2>&1 >/dev/null | awk '/^regions:/{printf "%.1f", $5*1e6/$2}')
  echo "$r $m $n $us" >> $R/regions.txt
done; done; done
cat $R/regions.txt
fi
tar rf $O/homes.tar -C $O r/machine.txt $(cd $O && ls r/regions.txt 2>/dev/null) && rm -rf $R
