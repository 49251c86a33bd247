#!/bin/bash
# usage: check.sh PROGDIR "ARGS" N "FLAGS" "FAULT" [reps]
d=$1; args=$2; n=$3; flags=$4; fault=$5; reps=${6:-1}
cd /tmp/camp/$d || exit 2
key=$(echo "$args" | md5sum | cut -c1-8)
ref=/tmp/camp/ref/$d.$key
mkdir -p /tmp/camp/ref /tmp/camp/out
if [ ! -f $ref ]; then go run . $args > $ref 2>/dev/null || { echo "REFFAIL $d"; exit 2; }; fi
for r in $(seq $reps); do
  o=/tmp/camp/out/$d.$$.$r
  start=$(date +%s.%N)
  if [ -n "$fault" ]; then
    CAPE_FAULT="$fault" timeout 300 /tmp/camp/cape run -n $n $flags . -- $args > $o.out 2> $o.err
  else
    timeout 300 /tmp/camp/cape run -n $n $flags . -- $args > $o.out 2> $o.err
  fi
  rc=$?
  t=$(echo "$(date +%s.%N) - $start" | bc)
  if cmp -s $o.out $ref; then same=same; else same=DIFF; fi
  if [ $rc -eq 0 ] && [ $same = same ]; then st=PASS
  elif [ $rc -eq 0 ]; then st=BUG
  else st=FAILRC; fi
  lost=$(grep -c "lost node\|was killed\|exited with status" $o.err)
  line="$st lostmsgs=$lost $d args=[$args] n=$n flags=[$flags] fault=[$fault] rc=$rc out=$same t=${t}s"
  echo "$line" | tee -a /tmp/camp/log.txt
  if [ $st = PASS ]; then rm -f $o.out $o.err; else echo "  files: $o.out $o.err"; fi
done
