#!/bin/bash
# progcamp.sh DIR...: each program module under cape run -n 3 (default) and -n 2 --transfer eager, against go run.
# The programs: the fifteenth session's campaigns (bench/results/homes-vm/s15/campaign*-findings.md,
# campaign4-adversarial.md describe them), each a module of its own under /tmp/camp2-4 there.
# Output: one line per program run that printed differently from go run with exit status 0 (WRONG)
# or ended with an error (REFUSED/ERR, with the first line of its stderr).
for d in "$@"; do
  [ -f $d/main.go ] || continue
  want=$(cd $d && timeout 60 go run . 2>/dev/null); wrc=$?
  for cfg in "-n 3" "-n 2 --transfer eager"; do
    got=$(cd $d && timeout 60 /tmp/m/cape run $cfg . 2>/tmp/pc.err); rc=$?
    if [ $rc = 0 ] && [ "$got" != "$want" ]; then echo "WRONG $d ($cfg)"; 
    elif [ $rc != 0 ]; then echo "REFUSED/ERR $d ($cfg): $(grep -v '^\[node' /tmp/pc.err | head -1 | cut -c1-160)"; fi
  done
done
echo progcamp done
