#!/bin/bash
# marks.sh OLDCAPE NEWCAPE: a 2M-element scatter through a permutation on 2 nodes, paired
# (old, marked, shared(out)) x 5, whole processes, wall seconds. OLDCAPE is cape built at 21f93db
# (before marked writes), NEWCAPE at this commit. The program: bench/results/s17/scatter/main.go
# (its module is made in a temp dir); shared(out) is the same program with the clause added.
set -e
old=$1 new=$2
d=$(mktemp -d)
mkdir -p $d/a $d/b
cp "$(dirname "$0")/scatter/main.go" $d/a/main.go
sed 's|//cape:parallel for$|//cape:parallel for shared(out)|' $d/a/main.go > $d/b/main.go
printf 'module example.com/a\n\ngo 1.26\n' > $d/a/go.mod
printf 'module example.com/b\n\ngo 1.26\n' > $d/b/go.mod
(cd $d/a && $old build -o $d/old . && $new build -o $d/marked .)
(cd $d/b && $new build -o $d/shared .)
for k in 1 2 3 4 5; do
  for b in old marked shared; do
    s=$(date +%s%N); $new run -n 2 $d/$b > /dev/null; e=$(date +%s%N)
    echo "$k $b $(( (e - s) / 1000000 )) ms"
  done
done
rm -rf $d
