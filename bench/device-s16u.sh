#!/bin/bash
# The unprivileged part of bench/device-s16.sh (same binaries, same
# machine): uid 65534 with vm.unprivileged_userfaultfd=0, results written
# where that user may write (/tmp/s16u), then copied to $OUT/s16u.tar.
set -u
O=${OUT:-/tmp/out}; mkdir -p $O
T=/tmp/capes16; P=$T/pb
[ -x $P/cape ] || { rm -rf $T; mkdir -p $T; xz -dc .devbin/pb.tar.xz | tar xf - -C $T; }
chmod -R a+rX $T; chmod 755 $T
U=/tmp/s16u; rm -rf $U; mkdir -p $U; chmod 777 $U
UF=$(cat /proc/sys/vm/unprivileged_userfaultfd)
echo 0 > /proc/sys/vm/unprivileged_userfaultfd
{ echo "vm.unprivileged_userfaultfd was $UF, now $(cat /proc/sys/vm/unprivileged_userfaultfd)"; setpriv --reuid 65534 --regid 65534 --clear-groups id; } > $U/user.txt 2>&1
as() { setpriv --reuid 65534 --regid 65534 --clear-groups env HOME=/tmp TMPDIR=/tmp "$@"; }
u() { local name=$1 w=$2 t=$3 r=$4; shift 4; echo "== $name $(date +%T)"
  timeout $t setpriv --reuid 65534 --regid 65534 --clear-groups env HOME=/tmp TMPDIR=/tmp $P/cape bench $w --prebuilt $P --reps $r --no-progress --out $U/$name "$@" > $U/$name.log 2>&1; echo "rc $?"; tail -2 $U/$name.log; }
echo "nodes iters us_per_region" > $U/regions-u.txt
for n in 2 4 8 15; do for it in 64 0; do
  echo "$n $it $(timeout 30 setpriv --reuid 65534 --regid 65534 --clear-groups env HOME=/tmp $P/cape run -n $n $P/regions -- -k 3000 -iters $it 2>&1 >/dev/null | awk '/^regions:/{printf "%.1f", $5*1e6/$2}')" >> $U/regions-u.txt
done; done
cat $U/regions-u.txt
u jacobi-u jacobi 100 2 --nodes 2,4,8 --sizes 2048 --iters 100 --modes seq,incremental,halo-go
u cg-u cg 40 2 --nodes 2,4,8 --sizes 256 --iters 500 --modes seq,incremental,mp-go
echo $UF > /proc/sys/vm/unprivileged_userfaultfd
tar cf $O/s16u.tar -C /tmp s16u
