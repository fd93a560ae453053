# Best direct member per key of the call-1 A/B CSVs (run in call_1/r): binary A (release) against B (exp80).
import csv,gzip,sys,math,collections
def load(f):
    d={}
    for r in csv.DictReader(gzip.open(f,'rt')):
        if r['status']=='ok': d[(r['kernel'],r['problem'])]=float(r['latency_ms'])
    return d
for dr in ['fwd','dgrad']:
    a=load(f'ab_{dr}_release.csv.gz'); b=load(f'ab_{dr}_exp80.csv.gz')
    probs=sorted({p for _,p in a})
    lr=[]
    for p in probs:
        ka=min((v,k) for (k,q),v in a.items() if q==p); kb=min((v,k) for (k,q),v in b.items() if q==p)
        lr.append(math.log(kb[0]/ka[0]))
        print(f"{p[:60]:60s} A {ka[0]*1000:7.2f} B {kb[0]*1000:7.2f} {kb[0]/ka[0]:.3f} {kb[1][:40] if kb[1]!=ka[1] else ''}")
    print(dr,'best B/A geomean',math.exp(sum(lr)/len(lr)))
