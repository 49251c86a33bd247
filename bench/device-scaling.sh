#!/bin/bash
# Scaling runs for RESULTS.md on a machine without a Go toolchain (one core
# per node up to 15 nodes): the active-grid Jacobi, 3-D heat, CG and power
# iteration workloads of cape bench beside their message-passing baselines,
# the edge-heated stencil, matmul's Table I and Figs. 4-6 (cape bench matmul:
# seq, goroutines, omp-c; complete, incremental, mpi-go, and mpi-c where
# Open MPI is installed), the empty region, and, when the build before a
# change is there, matmul paired against it. Build the binaries here first,
# from the module root, into a tarball (.devbin is git-ignored; P must be
# named pb):
#   P=$(mktemp -d)/pb; mkdir -p $P .devbin; git rev-parse HEAD > $P/commit
#   CGO_ENABLED=0 go build -ldflags='-s -w' -o $P/cape ./cmd/cape
#   CGO_ENABLED=0 $P/cape bench build $P   # every workload's and matmul's
#   CGO_ENABLED=0 $P/cape build -o $P/regions ./bench/regions
#   optionally the build before a change: $P/cape.base, $P/matmul.base
#   tar cf - -C $(dirname $P) $(basename $P) | xz -6 > .devbin/pb.tar.xz
# then run: bash bench/device-scaling.sh [quick] (about 8 minutes on 16
# cores, each workload cut by its timeout; quick: a minute or two). Results
# go to $OUT, one folder per cape bench workload ($OUT/matmul, $OUT/stencil,
# ...; pack them into one archive where the copy back limits the file
# count); BENCH_ONLY=1 stops after the cape bench runs.
set -u
O=${OUT:-/tmp/out}; mkdir -p $O
T=${TMPDIR:-/tmp}/capebench; rm -rf $T; mkdir -p $T
if [ -d "${PB:-}" ]; then P=$PB; else
  xz -dc .devbin/pb.tar.xz | tar xf - -C $T || python3 -c "import lzma,sys;sys.stdout.buffer.write(lzma.open('.devbin/pb.tar.xz').read())" | tar xf - -C $T
  P=$T/pb
fi
{ nproc; uname -r; id; cat /proc/cpuinfo | grep 'model name' | head -1; free -g | head -2; cat $P/commit 2>/dev/null; } > $O/machine.txt
Q=${1:-}
NODES=1,2,4,8,15
[ "$Q" = quick ] && NODES=1,2
# b WORKLOAD SECONDS REPS FLAGS...: one cape bench run, cut at SECONDS (its
# results.csv keeps the samples done; cape bench report redraws them).
b() { local w=$1 t=$2 r=$3; shift 3; [ "$Q" = quick ] && r=1; echo "== $w $(date +%T)"; timeout $t $P/cape bench $w --prebuilt $P --nodes $NODES --reps $r --no-progress --out $O/$w "$@" > $O/$w.log 2>&1; echo "rc $?"; tail -3 $O/$w.log; }
# matmul's modes: Table I's (one node) and Figs. 4-6's (1-15 nodes). Where
# Open MPI is installed, mpirun's start (2-3 s a run on 2 cores) times 30
# runs does not fit the budget: the full run leaves mpi-c out, and says so;
# where it is not, cape bench says it skips mpi-c.
MM=seq,goroutines,omp-c,complete,incremental,mpi-go,mpi-c
if [ "$Q" != quick ] && command -v mpirun > /dev/null; then MM=${MM%,mpi-c}; echo "mpirun here: matmul without mpi-c (time)"; fi
if [ "$Q" = quick ]; then
  b jacobi 60 1 --sizes 256 --iters 20 --modes seq,incremental,halo-go
  b cg 60 1 --sizes 64 --iters 50 --modes seq,incremental,mp-go
  b matmul 60 1 --sizes 192,384 --modes $MM
else
  # Budget (16 cores, sums of the walls in bench/results/scaling16):
  # jacobi 124 s, cg 36 s, heat3d 73 s, power 31 s, stencil 52 s; matmul
  # about 100-135 s (seq n=1536 takes 19 s there, so sizes to 1024).
  b jacobi 150 3 --sizes 2048 --iters 100 --modes seq,incremental,halo-go
  b cg 45 3 --sizes 256 --iters 500 --modes seq,incremental,mp-go
  b heat3d 85 2 --sizes 192 --iters 50 --modes seq,incremental,mp-go
  b power 40 2 --sizes 6144 --iters 20 --modes seq,incremental,mp-go
  b stencil 60 2 --sizes 2048 --iters 100 --modes seq,incremental,halo-go
  b matmul 150 2 --sizes 512,768,1024 --modes $MM
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
if [ ! -x $P/cape.base ] || [ ! -x $P/matmul.base ]; then
  echo "no $P/cape.base or $P/matmul.base: no paired before/after matmul runs"; exit 0
fi
echo "round build nodes ms rc" > $O/matmul.txt
MN=1024; [ "$Q" = quick ] && MN=256
for r in 1 2 3; do for n in 2 8; do for v in base new; do
  c=$P/cape; m=$P/matmul; [ $v = base ] && c=$P/cape.base && m=$P/matmul.base
  s=$(date +%s%N); $c run -n $n $m -- -n $MN > $O/mm.out 2>&1; rc=$?; e=$(date +%s%N)
  echo "$r $v $n $(( (e-s)/1000000 )) $rc" >> $O/matmul.txt
done; done; done
cat $O/matmul.txt
