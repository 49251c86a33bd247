#!/bin/bash
# measure.sh OUT ROUNDS: self replicas (the default on one host) against
# buddies (CAPE_REPLICAS=buddy), homes without copies (--max-lost 0) and the
# sequential program, interleaved; every output's md5 is compared with the
# sequential one's. Needs cape, jacobi (cape build ./examples/jacobi) and
# jacobi.seq (go build ./examples/jacobi) in $BIN (default /tmp/m).
set -u
O=$1; R=$2; B=${BIN:-/tmp/m}; C=$B/cape
mkdir -p $O
want=$($B/jacobi.seq -n 1024 -iters 100 2>/dev/null | md5sum | cut -c1-8)
echo "round nodes mode seconds ok load" > $O/jacobi.txt
for r in $(seq $R); do
  for n in 2 3; do
    for mode in seq self buddy ml0; do
      [ $mode = seq ] && [ $n = 3 ] && continue
      s=$(date +%s%N)
      case $mode in
        seq) out=$($B/jacobi.seq -n 1024 -iters 100 2>/dev/null);;
        self) out=$($C run -n $n $B/jacobi -- -n 1024 -iters 100 2>/dev/null);;
        buddy) out=$(CAPE_REPLICAS=buddy $C run -n $n $B/jacobi -- -n 1024 -iters 100 2>/dev/null);;
        ml0) out=$($C run -n $n --transfer homes --max-lost 0 $B/jacobi -- -n 1024 -iters 100 2>/dev/null);;
      esac
      e=$(date +%s%N)
      ok=ok; [ "$(echo "$out" | md5sum | cut -c1-8)" = "$want" ] || ok=WRONG
      echo "$r $n $mode $(( (e - s) / 1000000 )) $ok $(cut -d' ' -f1 /proc/loadavg)" >> $O/jacobi.txt
    done
  done
done
echo "round mode us_per_region" > $O/regions.txt
for r in $(seq $R); do
  for mode in self buddy ml0; do
    case $mode in
      self) env=""; f="";; buddy) env="CAPE_REPLICAS=buddy"; f="";; ml0) env=""; f="--transfer homes --max-lost 0";;
    esac
    us=$(env $env $C run -n 2 $f $B/regions -- -k 3000 2>&1 >/dev/null | awk '/^regions:/{printf "%.1f", $5*1e6/$2}')
    echo "$r $mode $us" >> $O/regions.txt
  done
done
