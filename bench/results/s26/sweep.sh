#!/bin/bash
# usage: sweep.sh OLD_CAPE NEW_CAPE: translates every program directory below with both builds
# and prints those whose diagnostics or counts of marks (cape.Mark, MarkAt, MarkCallee) differ
# (the campaign directories are the dev VM's /tmp).
OLD=$1; NEW=$2
for root in /tmp/c7b /tmp/c9b /tmp/c10/progs /tmp/sweep/c6 /tmp/sweep/c8 /tmp/c11/progs /tmp/c12/progs /work/main/examples /work/main/cmd/cape/testdata /work/main/bench /tmp/c13/progs /tmp/c13m/progs /tmp/c14/progs /tmp/c15/progs /tmp/c16/progs /tmp/c17/progs; do
  for d in $(find $root -name '*.go' -not -path '*/vendor/*' 2>/dev/null | xargs -n1 dirname | sort -u); do
    grep -lq "//cape:" $d/*.go 2>/dev/null || continue
    (cd $d && timeout 60 "$OLD" translate . > /tmp/s26/sw_a.out 2> /tmp/s26/sw_a.err)
    (cd $d && timeout 60 "$NEW" translate . > /tmp/s26/sw_b.out 2> /tmp/s26/sw_b.err)
    a=$(grep -v '^cape: [0-9]* error' /tmp/s26/sw_a.err | sort); b=$(grep -v '^cape: [0-9]* error' /tmp/s26/sw_b.err | sort)
    ma=$(grep -c "MarkCallee\|MarkAt\|\.Mark(" /tmp/s26/sw_a.out); mb=$(grep -c "MarkCallee\|MarkAt\|\.Mark(" /tmp/s26/sw_b.out)
    [ "$a" != "$b" ] && { echo "== DIAG $d"; diff <(echo "$a") <(echo "$b") | head -6 | cut -c1-220; }
    [ "$ma" != "$mb" ] && { echo "== MARKS $d $ma -> $mb"; grep -h "MarkCallee\|MarkAt\|\.Mark(" /tmp/s26/sw_b.out | sort -u | head -4 | cut -c1-160; }
  done
done
echo SWEEP-DONE
