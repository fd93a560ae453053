#!/usr/bin/env python3
"""Session 40: A/B of the direct tensor-core path's per-tile overheads (call 3): target/HEAD
(before) against target/release (after). Per set: B/A over the direct mma rows ok on both
sides (all, depth-streaming `_s3_` only), and per problem the best direct row of each side.
   results/h100/s40/ab_overhead.py results/h100/s40/call_3/r
   results/h100/s40/ab_overhead.py results/h100/s40/call_4/r zoo_dgrad"""
import csv, gzip, math, sys, os
d = sys.argv[1]
TAGS = sys.argv[2:] or ['zoo_dgrad', 'zoo_fwd', 'rc_dgrad']
def load(p):
    rows = {}
    with gzip.open(p, 'rt') as f:
        for r in csv.DictReader(f):
            if r['status'] == 'ok':
                rows[(r['kernel'], r['problem'])] = float(r['latency_ms'])
    return rows
def gm(v): return math.exp(sum(map(math.log, v)) / len(v)) if v else float('nan')
def q(v, f): v = sorted(v); return v[min(len(v) - 1, int(f * (len(v) - 1) + 0.5))] if v else float('nan')
for tag in TAGS:
    A = load(os.path.join(d, f'ab_{tag}_HEAD.csv.gz'))
    B = load(os.path.join(d, f'ab_{tag}_release.csv.gz'))
    for label, sel in [('mma', lambda k: '_mma_' in k[0]), ('stream', lambda k: '_s3_' in k[0] and '_mma_' in k[0])]:
        v = [B[k] / A[k] for k in A if k in B and sel(k)]
        print(f'== {tag} {label}: {len(v)} rows ok in both: B/A geomean {gm(v):.4f}, P10 {q(v,.1):.3f}, median {q(v,.5):.3f}, P90 {q(v,.9):.3f}')
    ratios = []
    for p in sorted({k[1] for k in A} | {k[1] for k in B}):
        a = min(((v, k[0]) for k, v in A.items() if k[1] == p), default=None)
        b = min(((v, k[0]) for k, v in B.items() if k[1] == p), default=None)
        if not a or not b: continue
        ratios.append(b[0] / a[0])
        if abs(b[0] / a[0] - 1) > 0.02:
            print(f'   {p}: best A {a[0]*1e3:.1f} us ({a[1]}), best B {b[0]*1e3:.1f} us ({b[1]}), B/A {b[0]/a[0]:.3f}')
    print(f'   best direct per problem: {len(ratios)} problems, B/A geomean {gm(ratios):.4f}, min {min(ratios):.3f}, max {max(ratios):.3f}')
