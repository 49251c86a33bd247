#!/bin/bash
# Scaling of distributed homes (--transfer homes) on a machine without a Go
# toolchain, one core per node up to 15 nodes: the active-grid Jacobi, CG,
# 3-D heat and power iteration workloads of cape bench beside their
# sequential runs and message-passing baselines. Build the binaries first
# (.devbin is git-ignored):
#   CGO_ENABLED=0 go build -ldflags='-s -w' -o P/cape ./cmd/cape
#   CGO_ENABLED=0 P/cape bench build P
#   tar cf - -C $(dirname P) $(basename P) | xz -6 > .devbin/pb.tar.xz
# then: bash bench/device-homes.sh. Results go to $OUT/homes.tar.
set -u
O=${OUT:-/tmp/out}; R=$O/r; mkdir -p $R
T=${TMPDIR:-/tmp}/capebench; rm -rf $T; mkdir -p $T
xz -dc .devbin/pb.tar.xz | tar xf - -C $T
P=$T/pb
{ nproc; uname -r; id; grep 'model name' /proc/cpuinfo | head -1; free -g | head -2; } > $R/machine.txt
N=${NODES:-1,2,4,8,15}
b() { local w=$1 t=$2 r=$3; shift 3; echo "== $w $(date +%T)"; timeout $t $P/cape bench $w --prebuilt $P --transfer homes --nodes $N --reps $r --no-progress --out $R/$w "$@" > $R/$w.log 2>&1; echo "rc $?"; tail -2 $R/$w.log; }
b jacobi 200 3 --sizes 2048 --iters 100 --modes seq,incremental,halo-go
b cg 60 2 --sizes 256 --iters 500 --modes seq,incremental,mp-go
b power 90 2 --sizes 6144 --iters 20 --modes seq,incremental,mp-go
b heat3d 90 2 --sizes 192 --iters 50 --modes seq,incremental,mp-go
tar cf $O/homes.tar -C $O r && rm -rf $R
