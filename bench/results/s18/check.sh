#!/bin/bash
# check.sh CAPE DIR...: each program module DIR under `go run .` and under
# CAPE run -n 2, -n 3 and -n 2 --transfer eager; one line per program:
# OK (the same output), WRONG (another output, exit status 0) or ERR (the
# first line of the error). The eighteenth session ran it with the cape
# binary of its start (937e29b) and of its end on the programs its notes
# name (campaigns' programs: /tmp/camp2-8 on the VM, tarballs beside this).
C=$1; shift
for d in "$@"; do
  d=${d%/}
  ( cd "$d" || exit
    timeout 120 go run . > /tmp/check.ref 2>/dev/null; rrc=$?
    line="$(basename "$d") ref_rc=$rrc"
    for v in n2 n3 eager; do
      case $v in n2) a="-n 2";; n3) a="-n 3";; eager) a="-n 2 --transfer eager";; esac
      timeout 120 "$C" run $a . > /tmp/check.out 2> /tmp/check.err; rc=$?
      if [ $rc != 0 ]; then c="ERR($rc): $(grep -v '^\s*$' /tmp/check.err | head -1 | cut -c1-140)"
      elif cmp -s /tmp/check.out /tmp/check.ref; then c=OK
      else c=WRONG; fi
      line="$line | $v: $c"
    done
    echo "$line" )
done
