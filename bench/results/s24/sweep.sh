#!/bin/bash
# usage: sweep.sh OLD_CAPE NEW_CAPE: translates every program directory below with both
# builds and prints those whose cape translate diagnostics differ (the
# campaign directories are the dev VM's /tmp).
OLD=${1:?usage: sweep.sh OLD_CAPE NEW_CAPE}; NEW=${2:?usage: sweep.sh OLD_CAPE NEW_CAPE}
for root in /tmp/c7b /tmp/c9b /tmp/c10/progs /tmp/sweep/c6 /tmp/sweep/c8 /tmp/c11/progs /tmp/c12/progs /work/main/examples /work/main/cmd/cape/testdata /work/main/bench /tmp/c13/progs /tmp/c13m/progs; do
  for d in $(find $root -name '*.go' -not -path '*/vendor/*' 2>/dev/null | xargs -n1 dirname | sort -u); do
    grep -lq "//cape:" $d/*.go 2>/dev/null || continue
    a=$(cd $d && timeout 60 "$OLD" translate . 2>&1 >/dev/null | grep -v '^cape: [0-9]* error' | sort)
    b=$(cd $d && timeout 60 "$NEW" translate . 2>&1 >/dev/null | grep -v '^cape: [0-9]* error' | sort)
    [ "$a" != "$b" ] && { echo "== $d"; diff <(echo "$a") <(echo "$b") | head -6 | cut -c1-220; }
  done
done
echo SWEEP-DONE
