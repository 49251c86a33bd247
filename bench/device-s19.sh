#!/bin/bash
# The nineteenth session's 16-core run, on a machine without a Go
# toolchain: the slaves leaving after main's last loop of regions and the
# first-touch examples/jacobi (new) against the runtime before them (old,
# bb1db11), paired; then the issue-29 figures with the new defaults
# against the sequential runs and the message-passing baselines, as root
# and as an unprivileged user (uid 65534, vm.unprivileged_userfaultfd=0).
# Build the binaries first (.devbin is git-ignored):
#   S=/tmp/dev19; mkdir -p $S/pb $S/old
#   CGO_ENABLED=0 go build -ldflags='-s -w' -o $S/pb/cape ./cmd/cape
#   CGO_ENABLED=0 $S/pb/cape bench build $S/pb; git rev-parse HEAD > $S/pb/commit
#   (in a worktree of bb1db11) CGO_ENABLED=0 go build -ldflags='-s -w' -o $S/old/cape ./cmd/cape
#   CGO_ENABLED=0 $S/old/cape build -o $S/old/jacobi ./examples/jacobi   (and cg)
#   tar cf - --exclude='*_mpi' --exclude='matmul_omp' --exclude='stencil*' \
#     --exclude='heat3d*' --exclude=goroutines -C /tmp dev19 | xz > .devbin/s19.tar.xz
# then: bash bench/device-s19.sh (about 3 minutes; SMALL=1 for a dry run
# at small sizes; SKIP_PAIRS=1, SKIP_U=1 leave those parts out). Results:
# $OUT/s19.tgz, written step by step.
set -u
# TAG names the session (s19 here; device-s20.sh runs this with TAG=s20).
TAG=${TAG:-s19}; N2=${TAG#s}
O=${OUT:-/tmp/out}; mkdir -p $O; R=$O/r; mkdir -p $R
T=/tmp/capes$N2; rm -rf $T; mkdir -p $T
xz -dc .devbin/$TAG.tar.xz | tar xf - -C $T
chmod -R a+rX $T; chmod 755 $T
P=$T/dev$N2/pb; OLD=$T/dev$N2/old
N=2048; CGN=256; PN=6144; MN=1024; NODES=2,4,8,15; RJ=3
[ -n "${SMALL:-}" ] && { N=256; CGN=64; PN=512; MN=128; NODES=2,4; RJ=1; }
UF=$(cat /proc/sys/vm/unprivileged_userfaultfd 2>/dev/null)
{ nproc; uname -r; id; grep 'model name' /proc/cpuinfo | head -1; free -g | head -2; cat $P/commit $OLD/commit; echo "vm.unprivileged_userfaultfd=$UF"; } > $R/machine.txt 2>&1
# b NAME WORKLOAD TIMEOUT REPS [flags]: one cape bench run as root.
# The results go back as one archive ($OUT/s19.tgz), rewritten after each
# step: the device tool returns a bounded number of files.
keep() { tar czf $O/$TAG.tgz.new -C $O r && mv $O/$TAG.tgz.new $O/$TAG.tgz; }
b() { local name=$1 w=$2 t=$3 r=$4; shift 4; echo "== $name $(date +%T)"; timeout $t $P/cape bench $w --prebuilt $P --reps $r --no-progress --out $R/$name "$@" > $R/$name.log 2>&1; echo "rc $?"; tail -1 $R/$name.log; keep; }
# 1. Old against new, paired: the active Jacobi's iterations and each
# node's peak RSS (rsswrap), 3 rounds at 4 and 8 nodes.
pair() { local v=$1 n=$2 d; [ $v = old ] && d=$OLD || d=$P
  timeout 60 $d/cape run -n $n $P/rsswrap -- $d/jacobi -n $N -iters 100 2>&1 >/dev/null |
    awk -v v=$v -v n=$n '!/^\[node/ && /iterations [0-9.]+s/{sub("s$","",$3); t=$3} /peak rss/{r=r" "(/^\[node/ ? "" : "m:") $(NF-1)} END{print v, n, t, r}'; }
if [ -z "${SKIP_PAIRS:-}" ]; then
echo "version nodes seconds peak_rss_kB_per_node" > $R/pairs.txt
for r in $(seq $RJ); do for n in 4 8; do for v in old new; do pair $v $n >> $R/pairs.txt; done; done; done
cat $R/pairs.txt; keep
fi
# 2. The figures with the new defaults.
b jacobi jacobi 150 $RJ --nodes $NODES --sizes $N --iters 100 --modes seq,incremental,halo-go
b cg cg 60 $RJ --nodes $NODES --sizes $CGN --iters 500 --modes seq,incremental,mp-go
b regions regions 40 3 --nodes $NODES
# 3. As uid 65534: userfaultfd for user-mode faults only.
if [ -z "${SKIP_U:-}" ]; then
U=/tmp/${TAG}u; rm -rf $U; mkdir -p $U; chmod 777 $U
echo 0 > /proc/sys/vm/unprivileged_userfaultfd 2>/dev/null
u() { local name=$1 w=$2 t=$3; shift 3; echo "== $name $(date +%T)"
  timeout $t setpriv --reuid 65534 --regid 65534 --clear-groups env HOME=/tmp TMPDIR=/tmp $P/cape bench $w --prebuilt $P --reps 2 --no-progress --out $U/$name "$@" > $U/$name.log 2>&1; echo "rc $?"; tail -1 $U/$name.log; cp -r $U/$name $U/$name.log $R/ 2>/dev/null; }
u jacobi-u jacobi 100 --nodes 2,4,8 --sizes $N --iters 100 --modes seq,incremental,halo-go
u cg-u cg 40 --nodes 2,4,8 --sizes $CGN --iters 500 --modes seq,incremental,mp-go
[ -n "$UF" ] && echo $UF > /proc/sys/vm/unprivileged_userfaultfd 2>/dev/null
keep
fi
# 4. No slower than before: power and matmul, one rep each size.
b power power 50 1 --nodes $NODES --sizes $PN --iters 20 --modes seq,incremental,mp-go
b matmul matmul 90 1 --nodes 1,$NODES --sizes $MN --modes seq,incremental,mpi-go
echo done $(date +%T)
