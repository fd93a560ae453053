"""Per layer: the best TMA-fed (wgmmatma) row of a sweep CSV against cuDNN (same CSV) and the
best pool member of a bench CSV; geometric means and the tiles that won most often.
Usage: python3 tma_vs_pool.py SWEEP.csv[.gz] [BENCH.csv[.gz]] [LABEL]"""
import csv,gzip,collections,math,sys
def rows(f):
    op=gzip.open if f.endswith('gz') else open
    with op(f,'rt') as fh: return list(csv.DictReader(fh))
def analyze(sweep, bench, label):
    S=rows(sweep); B=rows(bench) if bench else []
    by=collections.defaultdict(dict)
    for r in S:
        if r['status']=='ok': by[r['problem']][r['kernel']]=float(r['latency_ms'])
    pool=collections.defaultdict(dict)
    for r in B:
        if r['status']=='ok': pool[r['problem']][r['kernel']]=float(r['latency_ms'])
    cnt=collections.Counter(); ratios=[]; vsc=[]
    print(label)
    for p,d in sorted(by.items()):
        tma={k:v for k,v in d.items() if 'wgmmatma' in k}
        cud={k:v for k,v in d.items() if k.startswith('cudnn')}
        if not tma: continue
        bt=min(tma,key=tma.get); cnt[bt]+=1
        c=min(cud.values()) if cud else float('nan')
        pb={k:v for k,v in pool[p].items() if not k.startswith('cudnn')}
        pbest=min(pb.values()) if pb else float('nan')
        if pb: ratios.append(pbest/tma[bt])
        vsc.append(c/tma[bt])
        print(f"  {p[:70]:70s} tma {tma[bt]*1e3:7.1f} ({bt.split('_t')[1][:22]}) cudnn {c*1e3:7.1f} pool {pbest*1e3:7.1f}")
    g=lambda v: math.exp(sum(map(math.log,v))/len(v)) if v else float('nan')
    print(label, "best tma vs pool best geomean", g(ratios), len(ratios), "vs cudnn", g(vsc), len(vsc))
    for k,n in cnt.most_common(8): print("   ",n,k)
analyze(sys.argv[1], sys.argv[2] if len(sys.argv)>2 else None, sys.argv[3] if len(sys.argv)>3 else '')
