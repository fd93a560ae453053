#!/usr/bin/env python3
"""Session 39: A/B of sliding A fragments (call 2). For each set: B/A of the direct
tensor-core rows ok on both sides (all, and those with the pixel-pair walk: stride and
dilation 1 along W, even tile width, C/G 8 or a multiple of 16 -- approximated from the
names/keys), and per problem the best direct row of A against the best of B.
   results/h100/s39/ab_slide.py results/h100/s39/call_2/r"""
import csv, gzip, math, sys, os
d = sys.argv[1]
def load(p):
    rows = {}
    with gzip.open(p, 'rt') as f:
        for r in csv.DictReader(f):
            if r['status'] == 'ok':
                rows[(r['kernel'], r['problem'])] = float(r['latency_ms'])
    return rows
def gm(v): return math.exp(sum(map(math.log, v)) / len(v)) if v else float('nan')
def q(v, f): v = sorted(v); return v[min(len(v) - 1, int(f * (len(v) - 1) + 0.5))]
for tag in ['zoo_dgrad', 'zoo_fwd', 'rc_dgrad', 'rc_fwd']:
    A = load(os.path.join(d, f'ab_{tag}_release.csv.gz'))
    B = load(os.path.join(d, f'ab_{tag}_a-slide.csv.gz'))
    mma = [B[k] / A[k] for k in A if k in B and '_mma_' in k[0]]
    print(f'== {tag}: {len(mma)} mma rows ok in both: B/A geomean {gm(mma):.4f}, P10 {q(mma,.1):.3f}, median {q(mma,.5):.3f}, P90 {q(mma,.9):.3f}')
    probs = sorted({k[1] for k in A} | {k[1] for k in B})
    ratios = []
    for p in probs:
        a = min(((v, k[0]) for k, v in A.items() if k[1] == p), default=None)
        b = min(((v, k[0]) for k, v in B.items() if k[1] == p), default=None)
        if not a or not b: continue
        ratios.append(b[0] / a[0])
        if abs(b[0] / a[0] - 1) > 0.02:
            print(f'  {p:72s} A {a[0]*1e3:7.2f} B {b[0]*1e3:7.2f} B/A {b[0]/a[0]:.3f}  {b[1]}')
    print(f'  best direct per problem ({len(ratios)}): B/A geomean {gm(ratios):.4f}, min {min(ratios):.3f}, max {max(ratios):.3f}')
