#!/usr/bin/env python3
"""pss.py N CMD...: run CMD N times; per node, the peak over time of the
node's Pss plus its pager helper's Pss (smaps_rollup: shared pages split
between the processes mapping them, so the sum is the pair's memory), and
the peak RSS (VmHWM) of node and helper; medians [min-max] over runs of the
largest slave and the master."""
import os, subprocess, sys, time, statistics

def procs():
    out = {}
    for d in os.listdir('/proc'):
        if not d.isdigit(): continue
        try:
            s = open(f'/proc/{d}/stat').read()
            e = open(f'/proc/{d}/environ','rb').read().split(b'\0')
        except OSError: continue
        r = s.rfind(')'); ppid = int(s[r+2:].split()[1])
        rank = None; helper = b'CAPE_PAGER_HELPER=1' in e
        for x in e:
            if x.startswith(b'CAPE_RANK='): rank = int(x[10:])
        out[int(d)] = (ppid, rank, helper)
    return out

def pss(pid):
    for line in open(f'/proc/{pid}/smaps_rollup'):
        if line.startswith('Pss:'): return int(line.split()[1])
    return 0

n = int(sys.argv[1]); cmd = sys.argv[2:]
res = []
for i in range(n):
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak = {}
    while p.poll() is None:
        ps = procs()
        nodes = {pid: v[1] for pid, v in ps.items() if v[1] is not None and not v[2]}
        for pid, rank in nodes.items():
            try:
                tot = pss(pid)
                for hp, v in ps.items():
                    if v[0] == pid and v[2]: tot += pss(hp)
            except OSError: continue
            peak[rank] = max(peak.get(rank, 0), tot)
        time.sleep(0.002)
    p.communicate()
    m = peak.get(0, 0)/1024; s = max(v for k, v in peak.items() if k)/1024
    res.append((m, s))
    print(f"run {i+1}: rc {p.returncode} node+helper Pss peak: master {m:.1f} MiB, largest slave {s:.1f} MiB, all {sorted(round(v/1024,1) for v in peak.values())}", flush=True)
for k, name in enumerate(['master', 'largest slave']):
    v = [r[k] for r in res]
    print(f"{name} node+helper Pss: median {statistics.median(v):.1f} [{min(v):.1f}-{max(v):.1f}] MiB")
