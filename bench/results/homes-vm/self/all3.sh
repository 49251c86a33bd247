#!/bin/bash
M=/tmp/camp/matrix.sh
$M prog1 "" 7
$M prog2 "-n 5003 -steps 8" 5
$M prog3 "" 11
$M prog4 "" 50
$M prog5 "" 9
$M prog6 "" 4
$M prog7 "-steps 1500" 2000
$M prog8 "" 13
$M prog9 "" 12
$M prog10 "" 8
$M prog11 "" 20
$M prog12 "" 5
$M prog13 "" 17
$M prog14 "" 30
$M prog15 "" 9
