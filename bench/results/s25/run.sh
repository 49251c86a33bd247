#!/bin/bash
# usage: run.sh CAPE — each program of programs/ as go run prints it, then
# under CAPE on 2 nodes (3 runs), with exit statuses; a refusal prints the
# translator's first line.
CAPE=${1:?usage: run.sh CAPE}
here=$(cd "$(dirname "$0")" && pwd)
for p in gen_rand keys halfcall last_fn last_main last_field; do
  d=$here/programs/$p
  echo "== $p: go run: $(cd $d && go run . 2>&1 | tr '\n' ' ')"
  bin=$(mktemp -d)/prog
  if ! msg=$(cd $d && "$CAPE" build . -o $bin 2>&1); then
    echo "   refused: $(echo "$msg" | head -1 | cut -c1-220)"
    continue
  fi
  for i in 1 2 3; do
    out=$("$CAPE" run -n 2 $bin 2>/tmp/run_s25.err); rc=$?
    echo "   cape -n 2: exit $rc: $out $(grep -o 'nodes [0-9] and [0-9][^:]*' /tmp/run_s25.err | head -1 | cut -c1-90)"
  done
done
