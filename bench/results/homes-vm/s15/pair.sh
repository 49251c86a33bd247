#!/bin/bash
# pair.sh ROUNDS: main (A) against replica serving (B), paired, whole processes.
want=$(/tmp/m/jacobi.seq -n 1024 -iters 100 2>/dev/null | md5sum | cut -c1-8)
cgwant=$(/tmp/m/cg.seq -n 256 -iters 500 2>/dev/null | md5sum | cut -c1-8)
echo "round prog variant ms ok"
for r in $(seq $1); do
  for v in A B; do
    d=/tmp/m; [ $v = B ] && d=/tmp/rep
    s=$(date +%s%N); out=$($d/cape run -n 2 $d/jacobi -- -n 1024 -iters 100 2>/dev/null); e=$(date +%s%N)
    ok=ok; [ "$(echo "$out" | md5sum | cut -c1-8)" = "$want" ] || ok=WRONG
    echo "$r jacobi $v $(( (e-s)/1000000 )) $ok"
    s=$(date +%s%N); out=$($d/cape run -n 2 $d/cg -- -n 256 -iters 500 2>/dev/null); e=$(date +%s%N)
    ok=ok; [ "$(echo "$out" | md5sum | cut -c1-8)" = "$cgwant" ] || ok=WRONG
    echo "$r cg $v $(( (e-s)/1000000 )) $ok"
  done
done
