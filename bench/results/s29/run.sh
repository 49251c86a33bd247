#!/bin/bash
# usage: run.sh CAPE — s26/run.sh over this snapshot's programs/: each as
# go run prints it, then under CAPE on 2 and 3 nodes, with exit statuses.
here=$(cd "$(dirname "$0")" && pwd)
PROGRAMS=$here/programs exec bash "$here/../s26/run.sh" "$@"
