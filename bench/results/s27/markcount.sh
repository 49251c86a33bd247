#!/bin/bash
# usage: markcount.sh CAPE — the cape.Mark calls in the translation of every
# package under examples/ and bench/ (snapshots left out) with a
# //cape:parallel directive: one line per package, then the total.
CAPE=${1:?usage: markcount.sh CAPE}
root=$(cd "$(dirname "$0")/../../.." && pwd)
total=0
for d in $(grep -rl --include=*.go "cape:parallel" "$root/examples" "$root/bench" | grep -v "/bench/results/" | xargs -n1 dirname | sort -u); do
  n=$(cd "$d" && "$CAPE" translate . 2>/dev/null | grep -c 'Mark(')
  echo "${d#$root/} $n"
  total=$((total + n))
done
echo "total $total"
