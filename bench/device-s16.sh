#!/bin/bash
# The sixteenth session's 16-core run, on a machine without a Go toolchain:
# the runtime's defaults (distributed homes, self replicas, losses survived)
# against the sequential runs and the message-passing baselines, one core
# per node up to 15 nodes; the empty region with the master's releases
# written one slave after another or concurrently (CAPE_FANOUT) and with
# each node's GOMAXPROCS; and the active Jacobi, CG and the empty region as
# an unprivileged user (uid 65534) with vm.unprivileged_userfaultfd=0.
# Build the binaries first (.devbin is git-ignored):
#   P=$(mktemp -d)/pb; mkdir -p $P
#   CGO_ENABLED=0 go build -ldflags='-s -w' -o $P/cape ./cmd/cape
#   CGO_ENABLED=0 $P/cape bench build $P      # bench/regions too
#   git rev-parse HEAD > $P/commit
#   tar cf - -C $(dirname $P) pb | xz -6 > .devbin/pb.tar.xz
# then: bash bench/device-s16.sh (about 9 minutes). Results: $OUT/s16.tar,
# which grows step by step (a run cut short keeps what it did).
set -u
O=${OUT:-/tmp/out}; R=$O/r; mkdir -p $R; chmod 777 $R
T=/tmp/capes16; rm -rf $T; mkdir -p $T
xz -dc .devbin/pb.tar.xz | tar xf - -C $T
chmod -R a+rX $T; chmod 755 $T
P=$T/pb
UF=$(cat /proc/sys/vm/unprivileged_userfaultfd 2>/dev/null)
{ nproc; uname -r; id; grep 'model name' /proc/cpuinfo | head -1; free -g | head -2; cat $P/commit; echo "vm.unprivileged_userfaultfd=$UF"; id 65534; command -v setpriv; } > $R/machine.txt 2>&1
N=1,2,4,8,15
keep() { tar rf $O/s16.tar -C $O "$@"; }
# b NAME WORKLOAD TIMEOUT REPS [cape bench flags]: one cape bench run as root.
b() { local name=$1 w=$2 t=$3 r=$4; shift 4; echo "== $name $(date +%T)"; timeout $t $P/cape bench $w --prebuilt $P --reps $r --no-progress --out $R/$name "$@" > $R/$name.log 2>&1; echo "rc $?"; tail -2 $R/$name.log; keep r/$name r/$name.log; }
# u: the same as uid 65534, with vm.unprivileged_userfaultfd=0.
u() { local name=$1 w=$2 t=$3 r=$4; shift 4; echo "== $name $(date +%T)"; mkdir -p $R/$name; chmod 777 $R/$name
  timeout $t setpriv --reuid 65534 --regid 65534 --clear-groups env HOME=/tmp TMPDIR=/tmp $P/cape bench $w --prebuilt $P --reps $r --no-progress --out $R/$name "$@" > $R/$name.log 2>&1; echo "rc $?"; tail -2 $R/$name.log; keep r/$name r/$name.log; }
# The empty region: microseconds per region (the master's time / k).
reg() { timeout 30 env "$@" 2>&1 >/dev/null | awk '/^regions:/{printf "%.1f", $5*1e6/$2}'; }
# -iters 64: one page, every node writing part of it; -iters 0: no write.
echo "round fanout gomaxprocs iters nodes us_per_region" > $R/regions.txt
for r in 1 2; do for n in 2 4 8 15; do for f in serial parallel; do for g in default 2; do for it in 64 0; do
  [ $g = 2 ] && [ $it = 0 ] && continue
  e=(CAPE_FANOUT=$f); [ $g != default ] && e+=(GOMAXPROCS=$g)
  echo "$r $f $g $it $n $(reg "${e[@]}" $P/cape run -n $n $P/regions -- -k 3000 -iters $it)" >> $R/regions.txt
done; done; done; done; done
cat $R/regions.txt; keep r/regions.txt r/machine.txt
# The same by cape bench regions (the defaults), with the TCP round trip beside.
b regions regions 60 3 --nodes 2,4,8,15
# Where an empty region's time goes on 15 nodes: the master's --stats.
timeout 30 $P/cape run -n 15 --stats $P/regions -- -k 500 -iters 0 2>&1 >/dev/null | grep '^cape: master: region' | tail -300 | gzip > $R/regions15-stats.txt.gz; keep r/regions15-stats.txt.gz
b jacobi jacobi 150 3 --nodes $N --sizes 2048 --iters 100 --modes seq,incremental,halo-go
b cg cg 60 3 --nodes $N --sizes 256 --iters 500 --modes seq,incremental,mp-go
CAPE_FANOUT=serial b cg-serial cg 40 3 --nodes 4,8,15 --sizes 256 --iters 500 --modes seq,incremental
# As uid 65534: userfaultfd for user-mode faults only (the default since 5.11).
echo 0 > /proc/sys/vm/unprivileged_userfaultfd 2>/dev/null
u jacobi-u jacobi 100 2 --nodes 2,4,8 --sizes 2048 --iters 100 --modes seq,incremental,halo-go
u cg-u cg 40 2 --nodes 2,4,8 --sizes 256 --iters 500 --modes seq,incremental,mp-go
echo "nodes us_per_region_uid65534" > $R/regions-u.txt
for n in 2 4 8 15; do echo "$n $(reg setpriv --reuid 65534 --regid 65534 --clear-groups env HOME=/tmp $P/cape run -n $n $P/regions -- -k 3000)" >> $R/regions-u.txt; done
keep r/regions-u.txt
[ -n "$UF" ] && echo $UF > /proc/sys/vm/unprivileged_userfaultfd 2>/dev/null
b power power 50 2 --nodes $N --sizes 6144 --iters 20 --modes seq,incremental,mp-go
b matmul matmul 90 2 --nodes $N --sizes 1024 --modes seq,incremental,mpi-go
b heat3d heat3d 60 2 --nodes $N --sizes 192 --iters 50 --modes seq,incremental,mp-go
b stencil stencil 90 2 --nodes $N --sizes 2048 --iters 100 --modes seq,incremental,halo-go
echo done $(date +%T)
