#!/bin/bash
# Runs each program of programs/ (and two of cmd/cape/testdata/idioms) with go run and with CAPE on 2 and 3 local
# nodes, printing the first line of each output and the exit status; the
# point-* programs are also crashed (the master, in region 40) and restarted
# from the image of --transfer homes. Usage: bash run.sh /path/to/cape
# (a build of the commit to judge; 6917d4e's for the previous state).
CAPE=${1:?usage: run.sh CAPE}
cd "$(dirname "$0")/programs" || exit 1
for d in */ ../../../../cmd/cape/testdata/idioms/callresult/ ../../../../cmd/cape/testdata/idioms/assertions/; do
	d=${d%/}
	( cd "$d" || exit
	echo "== ${d##*/}"
	echo "go run:      $(go run . 2>&1 | head -1)"
	for n in 2 3; do
		out=$("$CAPE" run -n $n . 2>&1); rc=$?
		echo "cape -n $n:   $(echo "$out" | grep -v ": warning: " | head -1 | cut -c1-160) (status $rc)"
	done
	case $d in point-*)
		ck=$(mktemp -d)
		CAPE_FAULT=node=0,at=compute,do=crash,region=40 "$CAPE" run -n 2 --transfer homes --checkpoint "$ck/log" --checkpoint-every 1ms . >/dev/null 2>&1
		out=$("$CAPE" run -n 2 --transfer homes --checkpoint "$ck/log" --restart . 2>/dev/null); rc=$?
		echo "restarted:   $(echo "$out" | head -1 | cut -c1-160) (status $rc)"
		rm -rf "$ck";;
	esac )
done
