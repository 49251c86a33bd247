#!/bin/bash
# Paired rounds (VM): examples/stencil -n 1024 -iters 600 on 2 nodes, checkpointed with the
# default transfer (lazy: every region logged), with distributed homes (an image every 1 s),
# and with distributed homes unlogged. Usage: ckpt-homes.sh ROUNDS CAPE STENCIL_BIN
R=${1:-5}; CAPE=${2:-cape}; BIN=${3:-/tmp/stencil.bin}
for r in $(seq 1 $R); do
  for m in lazy-ckpt homes-ckpt homes; do
    rm -rf /tmp/ck-s22; case $m in
      lazy-ckpt) F="--checkpoint /tmp/ck-s22";;
      homes-ckpt) F="--transfer homes --checkpoint /tmp/ck-s22 --checkpoint-every 1s";;
      homes) F="--transfer homes";;
    esac
    t=$($CAPE run -n 2 $F $BIN -- -n 1024 -iters 600 2>&1 >/tmp/ck-s22.out | sed -n 's/^stencil: iterations \([0-9.]*\)s$/\1/p')
    echo "$r $m $t $(md5sum < /tmp/ck-s22.out | cut -c1-8)"
  done
done
rm -rf /tmp/ck-s22 /tmp/ck-s22.out
