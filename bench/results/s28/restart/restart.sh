#!/bin/bash
# usage: restart.sh CAPE — the restarts of campaign 20's A1: a run
# checkpointed with a bound small enough that the log is compacted to an
# image, then restarts with other arguments, with other input, and with the
# same; each restart's exit status and output, beside go run's.
CAPE=${1:?usage: restart.sh CAPE}
here=$(cd "$(dirname "$0")/../../../../cmd/cape/testdata/ckptinput" && pwd) # the test program of TestRestartRefusesAnotherRun
d=$(mktemp -d); bin=$d/prog
(cd "$here" && "$CAPE" build -o "$bin" . 2>/dev/null) || { echo "build failed"; exit 1; }
args="-n 48 -iters 300"
echo "go run, input 100, $args: $(cd "$here" && echo 100 | go run . $args)"
echo "go run, input 100, -n 40: $(cd "$here" && echo 100 | go run . -n 40 -iters 300)"
echo "go run, input 50, $args: $(cd "$here" && echo 50 | go run . $args)"
echo 100 | "$CAPE" run -n 2 --checkpoint "$d/ck" --checkpoint-max 256K "$bin" -- $args > "$d/out" 2>/dev/null
echo "checkpointed run, input 100: exit $?: $(cat "$d/out")"
restart() { # input nodes args...
  local in=$1 n=$2; shift 2
  cp -r "$d/ck" "$d/ck2"
  out=$(echo "$in" | "$CAPE" run -n "$n" --checkpoint "$d/ck2" --restart "$bin" -- "$@" 2>"$d/err"); rc=$?
  why=$(grep -o 'with other arguments\|differs from the logged run.s' "$d/err" | head -1)
  [ -z "$why" ] && why=$(grep -o 'restoring the image of point [^ ]* (after region #[0-9]*)' "$d/err" | head -1)
  echo "restart on $n nodes, input $in, $*: exit $rc: $out ($why)"
  rm -rf "$d/ck2"
}
restart 100 3 -n 40 -iters 300
restart 50 3 $args
restart 100 3 $args
rm -rf "$d"
