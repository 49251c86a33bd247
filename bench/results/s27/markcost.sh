#!/bin/bash
# usage: markcost.sh BEFORE MARKS GUARDED [REPS] — the particle drift of
# markcost/ (3 writes per particle at p.Pos[i*p.Dim+d], Dim a field) built
# by three cape binaries: before (no marks), marks (the overlap rule,
# unguarded: a cape.Mark per write) and guarded (if (p.Dim) == 0 { Mark }),
# run on 2 nodes in rotating order; whole-process wall seconds, the
# median and min–max of each, and the ratios to before per repetition.
set -e
here=$(cd "$(dirname "$0")" && pwd)
reps=${4:-5}
tmp=$(mktemp -d)
names=(before marks guarded)
bins=("$1" "$2" "$3")
for k in 0 1 2; do (cd "$here/markcost" && "${bins[$k]}" build -o "$tmp/${names[$k]}" . >/dev/null); done
want=$(cd "$here/markcost" && go run . -n 1048576 -steps 20)
declare -A t
for r in $(seq 1 "$reps"); do
  for j in 0 1 2; do
    k=$(( (j + r) % 3 )); n=${names[$k]}
    s=$(date +%s.%N)
    got=$("$1" run -n 2 "$tmp/$n" -- -n 1048576 -steps 20 2>/dev/null)
    e=$(date +%s.%N)
    [ "$got" = "$want" ] || { echo "$n: printed $got, go run $want"; exit 1; }
    t[$n,$r]=$(echo "$e - $s" | awk '{print $1-$3}')
  done
  echo "rep $r: before ${t[before,$r]} marks ${t[marks,$r]} guarded ${t[guarded,$r]}"
done
for n in marks guarded; do
  rs=$(for r in $(seq 1 "$reps"); do echo "${t[$n,$r]} ${t[before,$r]}" | awk '{printf "%.3f\n", $1/$2}'; done | sort -n | tr '\n' ' ')
  echo "$n / before: $rs"
done
rm -rf "$tmp"
