#!/bin/bash
# The master's Start per region (--stats), active Jacobi n=2048, 4 nodes,
# regions 6 to 41 of each run, for the binaries of 750453b (head) and of
# this change (new), R runs each, alternated. Prints per run the median
# and the range in microseconds. Usage: starts.sh R
R=${1:-3}
for r in $(seq 1 $R); do
  for b in head new; do
    /tmp/m/cape-$b run -n 4 --stats /tmp/mem/jacobi-$b -- -n 2048 -iters 40 2>&1 |
      awk -v b=$b -v r=$r '/^cape: master: region .*#([0-9]+):/ {
          match($0, /#[0-9]+:/); k = substr($0, RSTART+1, RLENGTH-2) + 0
          if (k < 6) next
          match($0, /start [0-9.]+(ms|µs)/); s = substr($0, RSTART+6, RLENGTH-6)
          v = s + 0; if (s ~ /ms$/) v *= 1000; a[n++] = v }
        END { for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
              printf "run %d %s master start µs: median %.0f [%.0f–%.0f] over %d regions\n", r, b, a[int((n-1)/2)], a[0], a[n-1], n }'
  done
done
