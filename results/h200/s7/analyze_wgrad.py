#!/usr/bin/env python3
"""The zoo wgrad table of results/h200/s7/README.md: per layer the best deterministic gconv
member, cuDNN, PyTorch (best layout), ratios and roofline, and each atomic member against the
best deterministic one. Run from the repository root:
    python3 results/h200/s7/analyze_wgrad.py results/h200/s7/final/zoo_wgrad.csv.gz results/h200/s7/probe/torch_zoo_wgrad.csv
"""
import csv,collections,gzip,math,sys,re
zoo=sys.argv[1]; torch=sys.argv[2]
rows=[r for r in csv.DictReader(gzip.open(zoo,'rt') if zoo.endswith('.gz') else open(zoo))]
ok=[r for r in rows if r['status']=='ok']
tor={r['problem']:r for r in csv.DictReader(open(torch))}
by=collections.defaultdict(list)
for r in ok: by[r['problem']].append(r)
keys=[l.strip() for l in open('results/h200/s7/zoo_wgrad.txt') if l.strip()]
g=lambda xs: math.exp(sum(map(math.log,xs))/len(xs))
R=collections.defaultdict(list)
print("| layer | best µs | best kernel | cuDNN µs | PyTorch µs (layout) | best/cuDNN | best/PyTorch | roofline |")
print("|---|---|---|---|---|---|---|---|")
detatom=[]
for k in keys:
    rs=by[k]
    ours=[r for r in rs if not r['kernel'].startswith('cudnn')]
    det=[r for r in ours if not re.search(r'_sk\d+a_',r['kernel'])]
    atom=[r for r in ours if re.search(r'_sk\d+a_',r['kernel'])]
    b=min(det,key=lambda r: float(r['latency_ms']))
    c=min([r for r in rs if r['kernel'].startswith('cudnn')],key=lambda r: float(r['latency_ms']))
    t=tor[k]; tms=float(t['torch_ms'])
    bl=float(b['latency_ms']); cl=float(c['latency_ms'])
    R['c'].append(cl/bl); R['t'].append(tms/bl); R['roof'].append(float(b['roofline_frac']))
    if atom:
        a=min(atom,key=lambda r: float(r['latency_ms']))
        # deterministic twin of the best atomic: same name with d
        twin=[r for r in det if re.sub(r'_sk\d+d_','_X_',r['kernel'])==re.sub(r'_sk\d+a_','_X_',a['kernel'])]
        detatom.append((k,float(a['latency_ms']),bl,float(twin[0]['latency_ms']) if twin else None, a['kernel'], twin[0]['kernel'] if twin else '-'))
    short=k.replace('wgrad_bf16_','').replace('_d1x1x1','').replace('_d1x1','')
    print(f"| {short} | {bl*1e3:.1f} | `{b['kernel']}` | {cl*1e3:.1f} | {tms*1e3:.1f} ({t['torch_layout']}) | {cl/bl:.2f}× | {tms/bl:.2f}× | {float(b['roofline_frac']):.3f} |")
print()
print(f"geomean best/cuDNN {g(R['c']):.3f}, best/PyTorch {g(R['t']):.3f}, roofline {g(R['roof']):.3f}; slower than cuDNN {sum(1 for x in R['c'] if x<1)}, than PyTorch {sum(1 for x in R['t'] if x<1)}")
print()
print("deterministic vs atomic (keys with atomic members):")
for k,a,b,tw,an,tn in detatom:
    print(f"  {k}: best atomic {a*1e3:.1f} µs ({an}); best deterministic {b*1e3:.1f} µs ({b/a:.2f}x of atomic); its deterministic twin {tw*1e3 if tw else float('nan'):.1f} µs ({tn})")
