#!/usr/bin/env python3
"""Session 39: the direct tensor-core rows of call 6's main (lane-delta addressing) against call 2's
slide and no-slide binaries, per class of member (units of one n8 block with one chunk per tap
or whole-tap steps, wider units): a cross-lease comparison (same H100 model, other machines)."""
import csv, gzip, math, re, collections
def load(p):
    rows={}
    for r in csv.DictReader(gzip.open(p,'rt')):
        if r['status']=='ok': rows[(r['kernel'],r['problem'])]=(float(r['latency_ms']),r)
    return rows
def gm(v): return math.exp(sum(map(math.log,v))/len(v))
for tag in ['zoo_dgrad','zoo_fwd','rc_dgrad','rc_fwd']:
    a2=load(f'results/h100/s39/call_2/r/ab_{tag}_release.csv.gz'); b2=load(f'results/h100/s39/call_2/r/ab_{tag}_a-slide.csv.gz'); a6=load(f'results/h100/s39/call_6/r/ab_{tag}_release.csv.gz')
    g=collections.defaultdict(list)
    for k,(l6,r) in a6.items():
        if '_mma_' not in k[0] or k not in a2 or k not in b2 or int(r['stride_w'])!=1: continue
        m=re.search(r'_v(\d+)x(\d+)_gm(\d+)',k[0]); va,vb,gmm=map(int,m.groups())
        if r['direction']=='fwd': cpg=int(r['C'])//int(r['G']); kpg=int(r['K'])//int(r['G'])
        else: cpg=int(r['K'])//int(r['G']); kpg=int(r['C'])//int(r['G'])
        cpg*=gmm; kpg*=gmm
        nw=max(d for d in range(8,max(va,8)+1,8) if kpg%d==0)
        if nw!=8: cls='nb>1'
        else: cls='nb1 cpt1' if cpg==8 else 'nb1 cpt>=2'
        g[cls].append((l6/b2[k][0], l6/a2[k][0]))
    for c,v in sorted(g.items()): print(tag, c, len(v), 'call6-main / call2-slide %.3f'%gm([x[0] for x in v]), ' / call2-noslide %.3f'%gm([x[1] for x in v]))
