#!/bin/bash
# Third part of the sixteenth session's 16-core run: clean loops with
# several regions (examples/cg: three a loop, examples/power: two), paired
# against the runtime just before them: the same examples built by each
# cape (static), run by it, alternating old and new within each round;
# the programs' own timers. Build into /tmp/s16c/{old,new} (cape, cg,
# power: CGO_ENABLED=0 go build ./cmd/cape, then CGO_ENABLED=0 cape build
# of each example), tar cf - -C /tmp s16c | xz > .devbin/s16c.tar.xz.
# Results: $OUT/s16c.txt.
set -u
O=${OUT:-/tmp/out}; mkdir -p $O
rm -rf /tmp/s16c; xz -dc .devbin/s16c.tar.xz | tar xf - -C /tmp
D=/tmp/s16c; cat $D/commits > $O/s16c.txt
t() { timeout 60 "$@" 2>&1 >/dev/null | awk '!/^\[node/ && /iterations [0-9.]+s/{sub("s$","",$3); print $3}' | head -1; }
echo "round workload nodes version seconds" >> $O/s16c.txt
for r in 1 2 3 4 5; do for n in 2 4 8 15; do for v in old new; do
  echo "$r cg $n $v $(t $D/$v/cape run -n $n $D/$v/cg -- -n 256 -iters 500)" >> $O/s16c.txt
  echo "$r power $n $v $(t $D/$v/cape run -n $n $D/$v/power -- -n 4096 -iters 20)" >> $O/s16c.txt
done; done; done
cat $O/s16c.txt
