#!/usr/bin/env bash
# Installs and starts what the multi-host tests need (internal/clustertest):
# OpenSSH (client and server, for the ssh launcher across network
# namespaces), iproute2 (ip netns, tc), a single-node Slurm (munge, slurmctld,
# slurmd) and Open MPI. Idempotent: a second run only checks that the daemons
# are up. Needs root; CI calls it from .ci/run.
set -euo pipefail

if [ "$(id -u)" != 0 ]; then
	echo "cluster-setup: not root; skipping (the cluster tests will say what is missing)" >&2
	exit 0
fi

pkgs=(openssh-server openssh-client iproute2 munge slurmctld slurmd slurm-client openmpi-bin)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "cluster-setup: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=600 update -qq </dev/null
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" </dev/null >/dev/null
fi

# Slurm: one node, this machine, every task oversubscribed on its CPUs.
host=$(hostname -s)
# At least 8 CPUs declared (config_overrides accepts more than the machine
# has), so that `srun -n 3` runs on a 2-core runner without --overcommit.
cpus=$(( $(nproc) > 8 ? $(nproc) : 8 ))
conf=/etc/slurm/slurm.conf
want=$(cat <<CONF
# Written by .ci/cluster-setup.sh for CAPE's scheduler tests.
ClusterName=cape
SlurmctldHost=$host
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmdSpoolDir=/var/spool/slurmd
StateSaveLocation=/var/spool/slurmctld
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=cape Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:64
CONF
)
mkdir -p /etc/slurm /var/spool/slurmd /var/spool/slurmctld /var/log/slurm
changed=0
if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$want" ]; then
	printf '%s\n' "$want" >"$conf"
	changed=1
fi

running() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# munge: a key, then the daemon.
if [ ! -s /etc/munge/munge.key ]; then
	mkdir -p /etc/munge
	dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
	chown munge:munge /etc/munge/munge.key 2>/dev/null || true
	chmod 400 /etc/munge/munge.key
fi
mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null || true
if ! running /run/munge/munged.pid; then
	if id munge >/dev/null 2>&1; then
		su -s /bin/sh munge -c "/usr/sbin/munged" </dev/null
	else
		/usr/sbin/munged --force </dev/null
	fi
fi

if [ $changed = 1 ]; then
	running /run/slurmctld.pid && kill "$(cat /run/slurmctld.pid)" && sleep 1
	running /run/slurmd.pid && kill "$(cat /run/slurmd.pid)" && sleep 1
fi
running /run/slurmctld.pid || /usr/sbin/slurmctld </dev/null
running /run/slurmd.pid || /usr/sbin/slurmd </dev/null

# Wait (bounded) for the node to be usable.
for _ in $(seq 1 30); do
	state=$(sinfo -h -N -o '%t' 2>/dev/null | head -1 || true)
	case "$state" in
	idle* | mix* | alloc*) break ;;
	down* | drain* | unk*) scontrol update nodename="$host" state=resume >/dev/null 2>&1 || true ;;
	esac
	sleep 1
done
echo "cluster-setup: ssh $(ssh -V 2>&1 | cut -d, -f1), slurm node $host: ${state:-unknown}, mpirun $(mpirun --version 2>/dev/null | head -1 | awk '{print $NF}')"
