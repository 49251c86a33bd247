#!/bin/bash
# loop.sh ID RUNS
id=$1; cd /tmp/rep; bad=0
for i in $(seq $2); do for n in 2 3; do
  ./cape run -n $n --transfer homes --stats ./rows > out.$id 2> err.$id; rc=$?
  if ! cmp -s out.$id rows.want; then bad=$((bad+1)); echo "id=$id n=$n run $i rc=$rc: $(cat out.$id)"; cp err.$id bad.$id.$n.$i; fi
done; done; echo "loop $id: bad=$bad"
