#!/bin/bash
# VM measurements for the twelfth+1 session: paired rounds.
# usage: measure.sh OUTDIR ROUNDS
O=$1; R=${2:-5}
mkdir -p $O
C=/tmp/cb/cape; J=/tmp/cb/jacobi; S=/tmp/cb/jacobi.seq
TIMEFORMAT=%R
echo "round nodes mode seconds md5" > $O/jacobi.txt
for r in $(seq $R); do
  t=$( { time $S -n 1024 -iters 100 > $O/out.seq 2>/dev/null; } 2>&1 ); echo "$r 1 seq $t $(md5sum < $O/out.seq | cut -c1-8)" >> $O/jacobi.txt
  for n in 2 3; do
    for mode in "default" "homes-ml0" "lazy"; do
      case $mode in default) f="";; homes-ml0) f="--transfer homes --max-lost 0";; lazy) f="--transfer lazy";; esac
      t=$( { time $C run -n $n $f $J -n 1024 -iters 100 > $O/out.$n 2>/dev/null; } 2>&1 )
      echo "$r $n $mode $t $(md5sum < $O/out.$n | cut -c1-8)" >> $O/jacobi.txt
    done
  done
done
echo "round mode us_per_region" > $O/regions.txt
for r in $(seq $R); do
  for mode in "default" "homes-ml0" "lazy" "eager"; do
    case $mode in default) f="";; homes-ml0) f="--transfer homes --max-lost 0";; lazy) f="--transfer lazy";; eager) f="--transfer eager";; esac
    us=$(timeout 30 $C run -n 2 $f /tmp/cb/regions -- -k 3000 2>&1 >/dev/null | awk '/^regions:/{printf "%.1f", $5*1e6/$2}')
    echo "$r $mode $us" >> $O/regions.txt
  done
done
