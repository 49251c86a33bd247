#!/bin/bash
# usage: run.sh CAPE — each program of programs/ (copied to a temporary
# directory: some write files) as go run prints it, then under CAPE on 2 and
# 3 nodes, with exit statuses; a refusal prints the translator's first line.
# A program's stdin file is its input.
CAPE=${1:?usage: run.sh CAPE}
here=$(cd "$(dirname "$0")" && pwd)
programs=${PROGRAMS:-$here/programs} # another snapshot's (s27/run.sh)
# files prints the checksums of the files a program writes.
files() { for f in run.log out.txt; do [ -f "$1/$f" ] && echo "| $f $(md5sum < "$1/$f" | cut -c1-8)"; done; }
for src in "$programs"/*/; do
  p=$(basename "$src")
  d=$(mktemp -d)/$p; cp -r "$src" "$d"
  in=/dev/null; [ -f "$d/stdin" ] && in=$d/stdin
  echo "== $p: go run: $(cd "$d" && timeout 60 go run . < "$in" 2>&1 | tr '\n' ' ' | cut -c1-120) $(files "$d")"
  rm -f "$d/run.log" "$d/out.txt"
  bin=$(mktemp -d)/prog
  if ! msg=$(cd "$d" && "$CAPE" build . -o "$bin" 2>&1); then
    echo "   refused: $(echo "$msg" | grep -v '^cape: [0-9]* error' | head -1 | sed "s|$d/||" | cut -c1-240)"
    continue
  fi
  for n in 2 3; do
    out=$(cd "$d" && timeout 60 "$CAPE" run -n $n "$bin" < "$in" 2>/tmp/run_s26.err); rc=$?
    echo "   cape -n $n: exit $rc: $(echo "$out" | tr '\n' ' ' | cut -c1-120) $(files "$d") $(grep -o 'nodes [0-9] and [0-9][^:(]*' /tmp/run_s26.err | head -1 | cut -c1-90)"
    rm -f "$d/run.log" "$d/out.txt"
  done
done
