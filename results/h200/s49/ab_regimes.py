#!/usr/bin/env python3
"""Call c's A/B per regime: new / base latency of each (kernel, problem) verified in both runs
(not stopped early), grouped by the sliding-walk regime of the member: tensor-core members with
8-channel units (`_mma_` with `vec_a` 8 or merged K/G 8: the ones `mma::a_slide` lets slide on
these stride-1 layers) by merged C/G and 2D / 3D, everything else apart; then the best member
per layer.

    python3 results/h200/s49/ab_regimes.py results/h100/s49/call_c/r
"""
import collections
import csv
import gzip
import math
import re
import sys


def load(path):
    rows = {}
    for r in csv.DictReader(gzip.open(path, "rt")):
        if r["status"] == "ok" and r["stopped_early"] in ("false", "0", ""):
            rows[(r["kernel"], r["problem"])] = float(r["latency_ms"])
    return rows


def geomean(v):
    return math.exp(sum(map(math.log, v)) / len(v))


d = sys.argv[1]
for direction in ("fwd", "dgrad"):
    a = load(f"{d}/ab_{direction}_base.csv.gz")
    b = load(f"{d}/ab_{direction}_new.csv.gz")
    groups = collections.defaultdict(list)
    for (k, p), t in a.items():
        if (k, p) not in b:
            continue
        g, c = map(int, re.search(r"_n\d+_g(\d+)_c(\d+)_", p).groups())
        gm = int(re.search(r"_gm(\d+)_", k).group(1))
        rank = "3D" if re.search(r"_i\d+x\d+x\d+_", p) else "2D"
        eight = "_v8x" in k or c // g * gm == 8  # units of 8 channels (K/G = C/G here)
        key = f"C/G {c // g * gm} {rank}" if "_mma_" in k and eight else "other"
        groups[key].append(b[(k, p)] / t)
    print(direction)
    for key, v in sorted(groups.items()):
        faster = sum(x < 1 for x in v)
        print(f"  {key:12s} {len(v):4d} pairs  geomean {geomean(v):.3f}  min {min(v):.3f}  max {max(v):.3f}  faster {faster}")
    best = lambda rows: {p: min(t for (k, q), t in rows.items() if q == p) for (_, p) in rows}
    ba, bb = best(a), best(b)
    print(f"  best member per layer: geomean {geomean([bb[p] / ba[p] for p in ba]):.4f} over {len(ba)} layers")
