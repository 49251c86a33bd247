#!/bin/bash
# Paired whole-process runs for RESULTS.md ("Checkpoints", "Rotations and
# leaks") from static binaries, for a machine without a Go toolchain. Build
# them into $B (default .devbin, git-ignored) first:
#   CGO_ENABLED=0 go build -ldflags='-s -w' -o .devbin/cape ./cmd/cape
#   CGO_ENABLED=0 .devbin/cape build -o .devbin/stencil ./examples/stencil
#   from a copy of cmd/cape/testdata/users3/leapfrog in a module of its own:
#   CGO_ENABLED=0 cape build -o .devbin/leap . ; CGO_ENABLED=0 go build -o .devbin/leap.seq .
#   and from its twin with preallocated buffers (spare := make(...) before the
#   loop, next := spare in it, prev, cur, spare = cur, next, prev):
#   CGO_ENABLED=0 cape build -o .devbin/leappre .
# Results go to $OUT (default /tmp/out).
B=${B:-.devbin}; O=${OUT:-/tmp/out}; mkdir -p $O
nproc > $O/machine.txt; uname -r >> $O/machine.txt; id >> $O/machine.txt
t() { local s=$(date +%s%N); "$@" > $O/last.out 2>$O/last.err; local rc=$?; local e=$(date +%s%N); echo "$(( (e-s)/1000000 )) $rc"; }
echo "round label ms rc logbytes out" > $O/ckpt.txt
for r in 1 2 3 4 5; do
  for v in new; do
    c=$B/cape; s=$B/stencil; [ $v = base ] && c=$B/cape.base && s=$B/stencil.base
    read ms rc < <(t $c run -n 2 $s -- -n 512 -iters 3000); echo "$r $v-nock $ms $rc 0 $(head -c 60 $O/last.out)" >> $O/ckpt.txt
    d=$(mktemp -d); rmdir $d
    read ms rc < <(t $c run -n 2 --checkpoint $d $s -- -n 512 -iters 3000); sz=$(du -sb $d | cut -f1); echo "$r $v-ck $ms $rc $sz $(head -c 60 $O/last.out)" >> $O/ckpt.txt
    rm -rf $d
  done
done
cp $O/last.err $O/ckpt-last.err
hwm() { # run cmd, poll VmHWM of processes whose exe is $1's path; print max kB
  local bin=$(readlink -f $1); shift; "$@" > $O/last.out 2>$O/last.err & local pid=$!; local max=0
  while kill -0 $pid 2>/dev/null; do
    for st in /proc/[0-9]*; do
      [ "$(readlink $st/exe 2>/dev/null)" = "$bin" ] || continue
      v=$(awk '/VmHWM/{print $2}' $st/status 2>/dev/null); [ -n "$v" ] && [ "$v" -gt "$max" ] && max=$v
    done; sleep 0.05
  done; wait $pid; echo "$max $?"
}
echo "round label ms peakKB rc out" > $O/leap.txt
for r in 1 2 3; do
  for v in leap leappre seq; do
    s=$(date +%s%N)
    case $v in
      seq) read kb rc < <(hwm $B/leap.seq $B/leap.seq -n 200000 -steps 2000) ;;
      *) read kb rc < <(hwm $B/$v $B/cape run -n 3 $B/$v -- -n 200000 -steps 2000) ;;
    esac
    e=$(date +%s%N); echo "$r $v $(( (e-s)/1000000 )) $kb $rc $(head -c 60 $O/last.out)" >> $O/leap.txt
  done
done
cat $O/ckpt.txt $O/leap.txt
