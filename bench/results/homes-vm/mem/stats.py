import re, sys, statistics, subprocess
def dur(s):
    m = re.match(r'([\d.]+)(ns|µs|ms|s)', s)
    v = float(m.group(1)); return v * {'ns':1e-6,'µs':1e-3,'ms':1,'s':1000}[m.group(2)]
cmd = sys.argv[1:]
err = subprocess.run(cmd, capture_output=True, text=True).stderr
st, cr, ex, co = [], [], [], []
for l in err.splitlines():
    m = re.search(r'#(\d+): start (\S+), compute (\S+), create (\S+) .*exchange (\S+) =', l)
    if m and int(m.group(1)) > 5:
        st.append(dur(m.group(2))); co.append(dur(m.group(3))); cr.append(dur(m.group(4))); ex.append(dur(m.group(5)))
it = [l for l in err.splitlines() if l.startswith('stencil:')]
print(f"start {statistics.median(st):.3f} compute {statistics.median(co):.3f} create {statistics.median(cr):.3f} exchange {statistics.median(ex):.3f} ms (medians over {len(st)} node-regions) {it}")
