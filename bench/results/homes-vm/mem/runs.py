#!/usr/bin/env python3
"""runs.py N CMD...: run CMD N times; per run, the peak RSS (VmHWM, MiB) of
the master, the largest slave, the largest pager helper; then medians
[min-max]."""
import os, subprocess, sys, time, statistics

def tree(root):
    m = {}
    for d in os.listdir('/proc'):
        if not d.isdigit(): continue
        try:
            s = open(f'/proc/{d}/stat').read()
        except OSError: continue
        r = s.rfind(')'); ppid = int(s[r+2:].split()[1])
        m.setdefault(ppid, []).append(int(d))
    out, st = [], [root]
    while st:
        p = st.pop(); out.append(p); st.extend(m.get(p, []))
    return out

def role(pid):
    try: e = open(f'/proc/{pid}/environ','rb').read().split(b'\0')
    except OSError: return None
    if b'CAPE_PAGER_HELPER=1' in e: return 'helper'
    for x in e:
        if x.startswith(b'CAPE_RANK='): return 'master' if x == b'CAPE_RANK=0' else 'slave'
    return None

def hwm(pid):
    for line in open(f'/proc/{pid}/status'):
        if line.startswith('VmHWM:'): return int(line.split()[1])
    return 0

n = int(sys.argv[1]); cmd = sys.argv[2:]
rows = []
for i in range(n):
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peaks, roles = {}, {}
    while p.poll() is None:
        for pid in tree(p.pid):
            r = role(pid)
            if r is None: continue
            roles[pid] = r
            try: peaks[pid] = max(peaks.get(pid, 0), hwm(pid))
            except OSError: pass
        time.sleep(0.003)
    out, err = p.communicate()
    wall = time.time() - t0
    it = [l for l in err.decode().splitlines() if l.startswith('stencil: iterations')]
    by = {'master': [], 'slave': [], 'helper': []}
    for pid, kb in peaks.items():
        if kb > 20000 or roles[pid] != 'helper' or True: by[roles[pid]].append(kb/1024)
    row = (max(by['master'] or [0]), max(by['slave'] or [0]), max(by['helper'] or [0]), wall)
    rows.append(row)
    print(f"run {i+1}: rc {p.returncode} master {row[0]:.1f} largest slave {row[1]:.1f} largest helper {row[2]:.1f} MiB; slaves {sorted(round(x,1) for x in by['slave'])}; wall {wall:.2f}s {it[0] if it else ''} {out.decode().strip()[-20:]}", flush=True)
for k, name in enumerate(['master', 'largest slave', 'largest helper', 'wall s']):
    v = [r[k] for r in rows]
    print(f"{name}: median {statistics.median(v):.2f} [{min(v):.2f}-{max(v):.2f}]")
