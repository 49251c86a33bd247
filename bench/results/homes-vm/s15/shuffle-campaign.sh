#!/bin/bash
# camp.sh FIRST LAST: shuffle under cape run (default: homes, self replicas), 2-4 nodes, a random slave killed (or paused) at a random point in most runs
pts=(start compute create send broadcast exchange)
bad=0; runs=0; cd /tmp/m
for s in $(seq $1 $2); do
  R=$(( 40 + (s % 3) * 55 ))
  ./shuffle.seq -seed $s -regions $R > sh.want.$1
  for n in 2 3 4; do
    f=""
    case $(( (s + n) % 4 )) in
      0) ;;
      1|2) node=$((1 + (s*5+n) % (n-1))); at=${pts[$(( (s*7+n) % 6 ))]}; reg=$(( 2 + (s*13+n) % (R-3) )); f="node=$node,at=$at,do=crash,region=$reg";;
      3) node=$((1 + (s*3+n) % (n-1))); reg=$(( 2 + (s*11+n) % (R-3) )); f="node=$node,at=compute,do=pause,for=2500ms,region=$reg";;
    esac
    if [ $n = 4 ] && [ $(( s % 5 )) = 0 ]; then f="node=1,at=compute,do=crash,region=3;node=2,at=create,do=crash,region=$(( 4 + s % 20 ))"; fi
    CAPE_FAULT="$f" timeout 120 ./cape run -n $n ./shuffle -- -seed $s -regions $R > sh.out.$1 2> sh.err.$1; rc=$?
    runs=$((runs+1))
    if [ $rc != 0 ] || ! cmp -s sh.out.$1 sh.want.$1; then bad=$((bad+1)); echo "seed $s n=$n fault=$f rc=$rc WRONG/FAILED"; tail -2 sh.err.$1; cp sh.err.$1 sh.bad.$s.$n.err; fi
  done
done
echo "campaign $1-$2: $runs runs, $bad bad"
