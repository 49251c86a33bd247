#!/bin/bash
# usage: matrix.sh PROG "ARGS" K
p=$1; a=$2; K=$3
C=/tmp/camp/check.sh
$C $p "$a" 2 "" "" 2
$C $p "$a" 3 "" "" 2
$C $p "$a" 4 "" "" 2
$C $p "$a" 3 "--transfer lazy" "" 1
$C $p "$a" 3 "--transfer homes --max-lost 0" "" 1
$C $p "$a" 3 "--transfer eager" "" 1
for at in compute create send broadcast exchange; do
  $C $p "$a" 3 "" "node=1,at=$at,do=crash,region=$K" 1
done
$C $p "$a" 4 "" "node=2,at=exchange,do=crash,region=$K" 1
$C $p "$a" 3 "" "node=1,at=compute,do=pause,for=2500ms,region=$K" 1
$C $p "$a" 3 "--transfer lazy" "node=1,at=send,do=crash,region=$K" 1
