#!/usr/bin/env python3
"""Run a command; poll its process tree; report per process peak RSS (VmHWM)
and the smaps breakdown at each process's largest observed VmRSS."""
import os, subprocess, sys, time, re, json

def children_map():
    m = {}
    for d in os.listdir('/proc'):
        if not d.isdigit(): continue
        try:
            with open(f'/proc/{d}/stat') as f: s = f.read()
        except OSError: continue
        r = s.rfind(')')
        ppid = int(s[r+2:].split()[1])
        m.setdefault(ppid, []).append(int(d))
    return m

def tree(root):
    m = children_map(); out = []; st = [root]
    while st:
        p = st.pop(); out.append(p); st.extend(m.get(p, []))
    return out

def status(pid):
    d = {}
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            k, _, v = line.partition(':')
            if k in ('Name','VmHWM','VmRSS','RssAnon','RssFile','RssShmem'):
                d[k] = v.strip().split()[0] if k!='Name' else v.strip()
    return d

def smaps(pid):
    res = {}; cur = None
    with open(f'/proc/{pid}/smaps') as f:
        for line in f:
            if re.match(r'^[0-9a-f]+-[0-9a-f]+ ', line):
                parts = line.split()
                a, b = [int(x, 16) for x in parts[0].split('-')]
                name = ' '.join(parts[5:]) if len(parts) > 5 else '[anon]'
                size = (b - a) >> 20
                if name == '[anon]' and size >= 1024: name = f'[anon {size} MiB: arena?]'
                cur = name
            elif line.startswith('Rss:') and cur is not None:
                res[cur] = res.get(cur, 0) + int(line.split()[1])
    return res

def cmdline(pid):
    try:
        with open(f'/proc/{pid}/cmdline','rb') as f: return f.read().replace(b'\0', b' ').decode()[:80]
    except OSError: return '?'

def envrole(pid):
    try:
        with open(f'/proc/{pid}/environ','rb') as f: e = f.read().split(b'\0')
    except OSError: return ''
    tags = [x.decode() for x in e if x.startswith(b'CAPE_PAGER') or x.startswith(b'CAPE_RANK') or x.startswith(b'CAPE_NODE')]
    return ','.join(tags)[:80]

cmd = sys.argv[1:]
t0 = time.time()
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
info = {}
while p.poll() is None:
    for pid in tree(p.pid):
        try:
            s = status(pid)
        except OSError: continue
        if 'VmRSS' not in s: continue
        rss = int(s['VmRSS'])
        i = info.setdefault(pid, {'cmd': cmdline(pid), 'env': envrole(pid), 'ppid': None, 'maxrss': 0, 'hwm': 0})
        i['hwm'] = max(i['hwm'], int(s['VmHWM']))
        if os.environ.get('TRACE') and i['env'].endswith(os.environ['TRACE']) and abs(rss - i.get('last', 0)) > 2048:
            i['last'] = rss
            try:
                sm = smaps(pid)
                print(f"  t={time.time()-t0:.3f} rss={rss/1024:.1f} " + ' '.join(f"{k.split('/')[-1][:20]}={v/1024:.1f}" for k, v in sorted(sm.items(), key=lambda kv:-kv[1])[:4]), file=sys.stderr)
            except OSError: pass
        if rss > i['maxrss'] + 512:
            i['maxrss'] = rss; i['at'] = round(time.time()-t0, 3); i['status'] = s
            try: i['smaps'] = smaps(pid)
            except OSError: pass
    time.sleep(0.003)
out, err = p.communicate()
sys.stdout.write(out.decode()[-300:])
print('rc', p.returncode, 'wall', round(time.time()-t0, 2))
for pid, i in sorted(info.items()):
    if i['hwm'] < 5000: continue
    print(f"pid {pid} hwm {i['hwm']/1024:.1f} MiB, max seen {i['maxrss']/1024:.1f} MiB at {i.get('at')}s  {i['cmd']} [{i['env']}]")
    s = i.get('status', {})
    print(f"   anon {int(s.get('RssAnon',0))/1024:.1f} file {int(s.get('RssFile',0))/1024:.1f} shmem {int(s.get('RssShmem',0))/1024:.1f}")
    for k, v in sorted(i.get('smaps', {}).items(), key=lambda kv: -kv[1])[:6]:
        if v >= 512: print(f"     {v/1024:8.1f} MiB  {k}")
