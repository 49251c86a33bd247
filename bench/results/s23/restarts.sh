#!/usr/bin/env bash
# Usage: bash restarts.sh CAPE
# Runs the two restart cases of RESULTS.md's twenty-third-session section
# with the cape binary CAPE (build the binary of 8b16a53 for "before"): the
# time-stepping idiom with a point (idiom/), crashed in region 8 and
# restarted from an image on 1 and 3 nodes, and a loop whose called function
# changes a package variable the point leaves out (pkgv/; refused at
# translation now). Each line: the case, the restart's status, and whether
# the restart printed the tail of go run's output.
set -u
cape=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$here/idiom" "$here/pkgv" "$work/"
cd "$work/idiom"
go run . > want
"$cape" build . -o bin || exit 1
for log in "--transfer homes --checkpoint-every 0" "--checkpoint-max 6000" "--transfer eager --checkpoint-max 6000"; do
	for n in 1 3; do
		rm -rf ck
		CAPE_FAULT=node=0,at=create,do=crash,region=8 "$cape" run -n 2 --checkpoint ck $log ./bin -pause 10ms > /dev/null 2>&1
		"$cape" run -n $n --checkpoint ck --restart ./bin > got 2> err
		rc=$?
		k=$(wc -l < got)
		same=no; [ "$k" -gt 0 ] && cmp -s got <(tail -n "$k" want) && same=yes
		echo "idiom [$log] restart on $n nodes: status $rc, go run's tail: $same, $(grep -o 'allocations differ' err | head -1)"
	done
done
cd "$work/pkgv"
echo "pkgv: go run prints $(go run .)"
if "$cape" build . -o bin 2> err; then
	rm -rf ck
	CAPE_FAULT=node=0,at=create,do=crash,region=20 "$cape" run -n 2 --checkpoint ck --transfer homes --checkpoint-every 0 ./bin > /dev/null 2>&1
	echo "pkgv: restart prints $("$cape" run -n 2 --checkpoint ck --restart ./bin 2>/dev/null), status $?"
else
	echo "pkgv: refused: $(head -1 err)"
fi
