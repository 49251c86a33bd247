#!/bin/bash
# usage: d1.sh OLD_CAPE NEW_CAPE [PAIRS] — campaign 18's particle loop
# (d1/: pos[p+d] with p += 3, d < 3) built by each cape, run on 2 nodes in
# pairs (old, new, old, new, …); prints each run's wall seconds, the marks
# each translation has, and the ratio new/old per pair.
OLD=${1:?usage: d1.sh OLD_CAPE NEW_CAPE [PAIRS]}; NEW=${2:?}; PAIRS=${3:-5}
here=$(cd "$(dirname "$0")" && pwd); tmp=$(mktemp -d)
cd "$here/d1"
for b in OLD NEW; do
  c=${!b}; "$c" build -o "$tmp/$b" . || exit 1
  echo "$b marks: $("$c" translate . | grep -c 'cape.Mark')"
done
want=$(go run .)
for i in $(seq "$PAIRS"); do
  line=""
  for b in OLD NEW; do
    s=$(date +%s%N); out=$("$NEW" run -n 2 "$tmp/$b"); e=$(date +%s%N)
    [ "$out" = "$want" ] || { echo "$b printed $out, go run $want"; exit 1; }
    t=$(( (e - s) / 1000000 )); line="$line $b ${t}ms"; eval "t_$b=$t"
  done
  echo "pair $i:$line new/old $(awk -v a="$t_NEW" -v b="$t_OLD" 'BEGIN { printf "%.3f", a / b }')"
done
