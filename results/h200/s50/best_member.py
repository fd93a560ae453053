#!/usr/bin/env python3
"""Best member per problem, new over base, of an A/B pair of bench CSVs (call c): per layer, the
geomean, and per math path over the pairs ok in both. Run in the folder holding
ab_D_{base,new}.csv.gz for each direction D named (default fwd dgrad):
python3 results/h200/s50/best_member.py [D ...]"""
import csv,gzip,sys,math,collections
def load(p):
    d=collections.defaultdict(dict)
    for r in csv.DictReader(gzip.open(p,'rt')):
        if r['status']=='ok': d[r['problem']][r['kernel']]=float(r['latency_ms'])
    return d
for dd in sys.argv[1:] or ['fwd', 'dgrad']:
    a=load(f'ab_{dd}_base.csv.gz'); b=load(f'ab_{dd}_new.csv.gz')
    rs=[]; rm=collections.defaultdict(list)
    for p in a:
        if p not in b: continue
        ka=min(a[p],key=a[p].get); kb=min(b[p],key=b[p].get)
        r=b[p][kb]/a[p][ka]; rs.append(r)
        for k in a[p]:
            if k in b[p]: rm['mma' if '_mma_' in k else 'simt'].append(b[p][k]/a[p][k])
        print(f"{dd} {p[:70]:70s} base {a[p][ka]*1000:7.2f} us new {b[p][kb]*1000:7.2f} us  {r:.3f}  {kb.split('_')[2]}_{kb.split('_')[3]}")
    g=math.exp(sum(map(math.log,rs))/len(rs))
    print(dd,'best-member new/base geomean %.4f over %d keys, min %.3f max %.3f'%(g,len(rs),min(rs),max(rs)))
    for m,v in rm.items(): print('  ',m,'members geomean %.4f over %d pairs'%(math.exp(sum(map(math.log,v))/len(v)),len(v)))
