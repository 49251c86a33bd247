#!/usr/bin/env bash
# Runs every fuzz target for a bounded time, one target per invocation (go
# test -fuzz accepts one target at a time). FUZZTIME (default 3s) bounds each,
# after its package's build: the run takes the number of targets times
# FUZZTIME and more, and its last line says how long. A crasher fails CI; go
# test writes it under the package's testdata/fuzz, where it becomes a
# regression input of every later `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-3s}
targets=(
	./delta:FuzzDecode ./delta:FuzzDiff ./delta:FuzzMergeBase ./delta:FuzzExclude
	./transport:FuzzParseHeader ./transport:FuzzDecodeHandshake ./transport:FuzzReadMessage
	./internal/launch:FuzzParseHostfile ./internal/launch:FuzzParseHostList
	./internal/nodeenv:FuzzExpandHostlistReference ./internal/nodeenv:FuzzExpandHostlist
	./internal/nodeenv:FuzzFromScheduler ./internal/nodeenv:FuzzReadLine ./internal/nodeenv:FuzzParseReport
	./internal/arena:FuzzParseSize ./internal/arena:FuzzAllocFree ./internal/arena:FuzzSetState ./cape/internal/allocs:FuzzEntries
	./translate:FuzzParseClauses ./translate:FuzzParseDirective
	./cape:FuzzOpen ./cape:FuzzProtocol ./cape:FuzzWriteMarks ./cape/internal/lazy:FuzzMerged ./cape/internal/stdio:FuzzParseSegments
	./cape/internal/wire:FuzzDecode ./cape/internal/wire:FuzzHomesSetup ./cape/internal/wire:FuzzUnpack ./cape/internal/wire:FuzzImage ./cape/internal/fault:FuzzParseFault ./cape/internal/homes:FuzzDirectory
	./cape/internal/durable:FuzzMessages
	./internal/pager:FuzzParseAnswer ./internal/pager:FuzzReplicaMessages ./internal/ckptlog:FuzzScanLog ./internal/ckptlog:FuzzParseRecord
)
# Every Fuzz function in the tree must be listed above, in its package (a
# target named in the wrong package would fuzz nothing and pass): the list
# is compared with the package:name of each one found.
listed=$(printf '%s\n' "${targets[@]}" | sort)
found=$(grep -roE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]+' . | sed -E 's|/[^/]+_test\.go:func |:|' | sort)
if [ "$listed" != "$found" ]; then
	echo "fuzz.sh: the target list differs from the Fuzz functions in the tree:"
	diff <(echo "$listed") <(echo "$found") || true
	exit 1
fi
# The inputs earlier runs on this machine found interesting (not failing:
# those are in testdata/fuzz) grow each target's baseline, which counts
# against FUZZTIME: with hundreds of them a target ran out of time before
# fuzzing ("context deadline exceeded"). Every run starts from the
# committed seeds.
go clean -fuzzcache
start=$SECONDS
for t in "${targets[@]}"; do
	pkg=${t%%:*} name=${t#*:}
	echo "== fuzz $name ($pkg, $fuzztime)"
	ok=
	for attempt in 1 2 3; do
		if out=$(go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg" 2>&1); then
			echo "$out" | tail -n 2
			ok=1
			break
		fi
		echo "$out" | tail -n 40
		# A failing input is written under testdata/fuzz: that is a real
		# crasher and fails CI at once. Without one, the fuzzing engine
		# itself failed: go1.26's coordinator reports "context deadline
		# exceeded" when -fuzztime ends while a worker is busy (a race
		# fixed in Go 1.27, go.dev/issue/75804), one target in 15 or so
		# per run here. Try up to three times.
		if [ -n "$(git status --porcelain -- "$pkg/testdata/fuzz")" ]; then
			echo "fuzz: $name found a failing input:"
			git status --porcelain -- "$pkg/testdata/fuzz"
			exit 1
		fi
		echo "fuzz: $name failed without a failing input (attempt $attempt)"
	done
	[ -n "$ok" ] || exit 1
done
echo "== fuzz: ${#targets[@]} targets in $((SECONDS - start))s"
