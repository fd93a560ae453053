#!/usr/bin/env python3
"""Session 39, call 2: which members should slide? Per rule, the per-layer best direct member
of A (main) against the same with the rule's members taken from B (a-slide), and B/A over the
mma rows. Also lists the one-n8-block rows that lost more than 4 %.
   results/h100/s39/ab_rule.py   (reads results/h100/s39/call_2/r)"""
import csv, gzip, math, os, re, collections
d='results/h100/s39/call_2/r'
def load(p):
    rows = {}
    with gzip.open(p, 'rt') as f:
        for r in csv.DictReader(f):
            if r['status'] == 'ok':
                rows[(r['kernel'], r['problem'])] = (float(r['latency_ms']), r)
    return rows
def info(k, r):
    m=re.search(r't(\d+)x(\d+)x(\d+)_w(\d+)x1_s(\d)_v(\d+)x(\d+)_gm(\d+)',k)
    tm,tn,tk,w,s,va,vb,gmm=map(int,m.groups())
    if r['direction']=='fwd': cpg=int(r['C'])//int(r['G']); kpg=int(r['K'])//int(r['G'])
    else: cpg=int(r['K'])//int(r['G']); kpg=int(r['C'])//int(r['G'])
    cpg*=gmm; kpg*=gmm
    nw=max(d for d in range(8, max(va,8)+1, 8) if kpg % d == 0)
    return dict(tm=tm,tn=tn,tk=tk,w=w,s=s,va=va,mb=vb,gm=gmm,cpg=cpg,nb=nw//8, units=((tm+15)//16 + vb-1)//vb * max(1, tn//nw))
rules = {
 'all': lambda i: True,
 'nb1': lambda i: i['nb']==1,
 'nb1_tm>64': lambda i: i['nb']==1 and i['tm']>64,
 'nb1|cpg32nb2': lambda i: i['nb']==1 or (i['cpg']>=32 and i['nb']<=2),
 'nb1|cpg32nb2,tm>64': lambda i: (i['nb']==1 or (i['cpg']>=32 and i['nb']<=2)) and i['tm']>64,
 'units>=warps': lambda i: i['units']>=i['w'],
 'nb1_units>=warps': lambda i: i['nb']==1 and i['units']>=i['w'],
 'mb*?': lambda i: i['nb']==1 and i['tk']>=14,
}
def gm_(v): return math.exp(sum(map(math.log, v)) / len(v))
for name, rule in rules.items():
    out=[]; mm=[]
    for tag in ['zoo_dgrad', 'zoo_fwd', 'rc_dgrad', 'rc_fwd']:
        A = load(os.path.join(d, f'ab_{tag}_release.csv.gz'))
        B = load(os.path.join(d, f'ab_{tag}_a-slide.csv.gz'))
        best=collections.defaultdict(lambda: [9,9])
        for k,(la,r) in A.items():
            lb=la
            if '_mma_' in k[0] and k in B and int(r['stride_w'])==1:
                i=info(k[0], r)
                if rule(i): lb=B[k][0]
                if '_mma_' in k[0]: mm.append(lb/la)
            b=best[k[1]]; b[0]=min(b[0],la); b[1]=min(b[1],lb)
        out += [b[1]/b[0] for b in best.values()]
    print(f'{name:22s} best-per-problem geomean {gm_(out):.4f} min {min(out):.3f} max {max(out):.3f} ; mma rows geomean {gm_(mm):.4f} worst {max(mm):.3f}')
print()
for tag in ['zoo_dgrad', 'zoo_fwd', 'rc_dgrad', 'rc_fwd']:
    A = load(os.path.join(d, f'ab_{tag}_release.csv.gz'))
    B = load(os.path.join(d, f'ab_{tag}_a-slide.csv.gz'))
    for k,(la,r) in A.items():
        if '_mma_' in k[0] and k in B and int(r['stride_w'])==1:
            i=info(k[0], r)
            if i['nb']==1 and B[k][0]/la > 1.04: print(f"{B[k][0]/la:.3f} {k[0]} {k[1]} {i}")
