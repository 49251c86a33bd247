#!/bin/bash
# 5 rounds as uid 65534 (vm.unprivileged_userfaultfd=0) and as root: jacobi n=1024 100 it., 2 and 3 nodes
TIMEFORMAT=%R
U="setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH=/usr/bin:/bin TMPDIR=/tmp/up/tmp HOME=/tmp/up/tmp"
echo "round user nodes mode seconds md5"
for r in 1 2 3 4 5; do
  for who in uid65534 root; do
    pre=""; [ $who = uid65534 ] && pre="$U"
    for n in 2 3; do
      for mode in default homes-ml0 lazy; do
        case $mode in default) f="";; homes-ml0) f="--transfer homes --max-lost 0";; lazy) f="--transfer lazy";; esac
        t=$( { time $pre /tmp/up/cape run -n $n $f /tmp/up/jacobi -n 1024 -iters 100 > /tmp/up/tmp/o 2>/dev/null; } 2>&1 )
        echo "$r $who $n $mode $t $(md5sum < /tmp/up/tmp/o | cut -c1-8)"
      done
    done
  done
done
