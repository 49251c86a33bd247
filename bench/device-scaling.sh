#!/bin/bash
# Scaling runs for RESULTS.md on a machine without a Go toolchain (one core
# per node up to 15 nodes): the active-grid Jacobi, 3-D heat, CG and power
# iteration workloads of cape bench beside their message-passing baselines,
# the edge-heated stencil, the empty region, and matmul paired against the
# build before the change. Build the binaries here first, into a tarball
# (.devbin is git-ignored):
#   CGO_ENABLED=0 go build -ldflags='-s -w' -o P/cape ./cmd/cape
#   CGO_ENABLED=0 P/cape bench build P
#   CGO_ENABLED=0 P/cape build -o P/matmul ./examples/matmul
#   CGO_ENABLED=0 P/cape build -o P/regions ./bench/regions
#   and the build before: P/cape.base, P/matmul.base
#   tar cf - -C $(dirname P) $(basename P) | xz -6 > .devbin/pb.tar.xz
# then run: bash bench/device-scaling.sh [quick]. Results go to $OUT (pack
# its folders into one archive where the copy back limits the file count);
# BENCH_ONLY=1 stops after the cape bench workloads.
set -u
O=${OUT:-/tmp/out}; mkdir -p $O
T=${TMPDIR:-/tmp}/capebench; rm -rf $T; mkdir -p $T
if [ -d "${PB:-}" ]; then P=$PB; else
  xz -dc .devbin/pb.tar.xz | tar xf - -C $T || python3 -c "import lzma,sys;sys.stdout.buffer.write(lzma.open('.devbin/pb.tar.xz').read())" | tar xf - -C $T
  P=$T/pb
fi
{ nproc; uname -r; id; cat /proc/cpuinfo | grep 'model name' | head -1; free -g | head -2; } > $O/machine.txt
Q=${1:-}
NODES=1,2,4,8,15
[ "$Q" = quick ] && NODES=1,2
# b WORKLOAD SECONDS REPS FLAGS...: one cape bench run, cut at SECONDS (its
# results.csv keeps the samples done; cape bench report redraws them).
b() { local w=$1 t=$2 r=$3; shift 3; [ "$Q" = quick ] && r=1; echo "== $w $(date +%T)"; timeout $t $P/cape bench $w --prebuilt $P --nodes $NODES --reps $r --no-progress --out $O/$w "$@" > $O/$w.log 2>&1; echo "rc $?"; tail -3 $O/$w.log; }
if [ "$Q" = quick ]; then
  b jacobi 60 1 --sizes 256 --iters 20 --modes seq,incremental,halo-go
  b cg 60 1 --sizes 64 --iters 50 --modes seq,incremental,mp-go
else
  b jacobi 170 3 --sizes 2048 --iters 100 --modes seq,incremental,halo-go
  b cg 50 3 --sizes 256 --iters 500 --modes seq,incremental,mp-go
  b heat3d 80 2 --sizes 192 --iters 50 --modes seq,incremental,mp-go
  b power 70 2 --sizes 6144 --iters 20 --modes seq,incremental,mp-go
  b stencil 70 2 --sizes 2048 --iters 100 --modes seq,incremental,halo-go
fi
[ -n "${BENCH_ONLY:-}" ] && exit 0
# The empty region: microseconds per region, the master's time / 3000.
echo "round nodes us_per_region" > $O/regions.txt
for r in 1 2 3; do for n in 2 4 8 15; do
  [ "$Q" = quick ] && [ $n -gt 2 ] && continue
  us=$($P/cape run -n $n $P/regions -- -k 3000 2>&1 >/dev/null | awk '/^regions:/{printf "%.1f", $5*1e6/$2}')
  echo "$r $n $us" >> $O/regions.txt
done; done
cat $O/regions.txt
# matmul before/after, paired (A B A B), 2 and 8 nodes.
echo "round build nodes ms rc" > $O/matmul.txt
MN=1024; [ "$Q" = quick ] && MN=256
for r in 1 2 3; do for n in 2 8; do for v in base new; do
  c=$P/cape; m=$P/matmul; [ $v = base ] && c=$P/cape.base && m=$P/matmul.base
  s=$(date +%s%N); $c run -n $n $m -- -n $MN > $O/mm.out 2>&1; rc=$?; e=$(date +%s%N)
  echo "$r $v $n $(( (e-s)/1000000 )) $rc" >> $O/matmul.txt
done; done; done
cat $O/matmul.txt
