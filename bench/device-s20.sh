#!/bin/bash
# The twentieth session's 16-core run (prepared; no machine was lent), on a
# machine without a Go toolchain: twins from the copies a node keeps, the
# twins and the master's snapshot dropped after the last region, fresh pages
# untwinned (new) against the runtime before them (old, 750453b), paired;
# then the issue-29 figures with the new defaults against the sequential
# runs and the message-passing baselines, as root and as an unprivileged
# user (uid 65534, vm.unprivileged_userfaultfd=0). The steps are
# device-s19.sh's, run with TAG=s20. Build the binaries first (.devbin is
# git-ignored; about 39 MB):
#   S=/tmp/dev20; mkdir -p $S/pb $S/old
#   CGO_ENABLED=0 go build -ldflags='-s -w' -o $S/pb/cape ./cmd/cape
#   CGO_ENABLED=0 $S/pb/cape bench build $S/pb; git rev-parse HEAD > $S/pb/commit
#   (in a worktree of 750453b) CGO_ENABLED=0 go build -ldflags='-s -w' -o $S/old/cape ./cmd/cape
#   CGO_ENABLED=0 $S/old/cape build -o $S/old/jacobi ./examples/jacobi   (and cg);
#   git rev-parse HEAD > $S/old/commit
#   tar cf - --exclude='*_mpi' --exclude='matmul_omp' --exclude='stencil*' \
#     --exclude='heat3d*' --exclude=goroutines -C /tmp dev20 | xz > .devbin/s20.tar.xz
# then: bash bench/device-s20.sh (about 3 minutes; SMALL=1 for a dry run
# at small sizes; SKIP_PAIRS=1, SKIP_U=1 leave those parts out). Results:
# $OUT/s20.tgz, written step by step.
TAG=s20 exec bash "$(dirname "$0")/device-s19.sh" "$@"
