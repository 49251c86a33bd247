#!/bin/bash
# usage: run.sh CAPE — each program of programs/ as go run prints it, then
# under CAPE on 2 nodes (3 runs), with exit statuses; a refusal prints the
# translator's first line. A program's args file holds its arguments, its
# stdin file its input, its capeflags file flags for cape run; with a
# restart file (a region number R), each run is a master crashed in region
# R under --checkpoint (bounded at 64 KiB) and a restart on 2 nodes.
CAPE=${1:?usage: run.sh CAPE}
here=$(cd "$(dirname "$0")" && pwd)
for d in "$here"/programs/*/; do
  p=$(basename "$d")
  args=$(cat "$d/args" 2>/dev/null); flags=$(cat "$d/capeflags" 2>/dev/null)
  in=/dev/null; [ -f "$d/stdin" ] && in=$d/stdin
  echo "== $p: go run: $(cd "$d" && go run . "$args" < "$in" 2>&1 | tail -1)"
  bin=$(mktemp -d)/prog
  if ! msg=$(cd "$d" && "$CAPE" build . -o "$bin" 2>&1); then
    echo "   refused: $(echo "$msg" | head -1 | sed "s|$here/||" | cut -c1-240)"
    continue
  fi
  for i in 1 2 3; do
    if [ -f "$d/restart" ]; then
      ck=$(mktemp -d)/ck; flags="--checkpoint $ck --checkpoint-max 65536"
      CAPE_FAULT=node=0,at=compute,do=crash,region=$(cat "$d/restart") "$CAPE" run -n 3 $flags "$bin" "$args" < "$in" > /dev/null 2>&1
      flags="$flags --restart"
    fi
    out=$("$CAPE" run -n 2 $flags "$bin" "$args" < "$in" 2>/tmp/run_s25.err); rc=$?
    out=$(echo "$out" | tail -1)
    echo "   cape -n 2 ${flags//\/tmp\/tmp.*\/ck/CK}: exit $rc: $out $(grep -o 'nodes [0-9] and [0-9][^:(]*\|--verify: [^;]*' /tmp/run_s25.err | head -1 | cut -c1-90)"
  done
done
