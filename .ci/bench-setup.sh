#!/usr/bin/env bash
# Installs what `cape bench` and bench/'s tests need for the paper's reference
# baselines: gcc with OpenMP and Open MPI (mpicc, mpirun), plus iproute2 for
# the emulated cluster's tc bandwidth limits. Idempotent; needs root and apt.
set -euo pipefail
need=()
command -v gcc >/dev/null || need+=(gcc)
# mpicc alone is not enough: openmpi-bin (which .ci/cluster-setup.sh
# installs for mpirun) has the wrapper but not mpi.h, which is in
# libopenmpi-dev.
if ! command -v mpicc >/dev/null || ! printf '#include <mpi.h>\n' | mpicc -x c -E - >/dev/null 2>&1; then
	need+=(libopenmpi-dev)
fi
command -v mpirun >/dev/null || need+=(openmpi-bin)
command -v tc >/dev/null || need+=(iproute2)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
if ! command -v apt-get >/dev/null; then
	echo "bench-setup: apt-get not found; install ${need[*]} by hand" >&2
	exit 1
fi
SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
