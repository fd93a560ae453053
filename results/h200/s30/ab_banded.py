"""Session 30, calls a and b: the banded kernels after session 30's changes (new) against
their parent (base): per (kernel, problem) the fastest of each binary's runs, every row
verified.

    python3 results/h200/s30/ab_banded.py DIR          # call a: DIR/banded_{base,new}_*.csv.gz
    python3 results/h200/s30/ab_banded.py DIR fwd      # call b: DIR/fwd_{base,new}_*.csv.gz
"""
import collections, csv, glob, gzip, math, re, sys

here = sys.argv[1]
prefix = sys.argv[2] if len(sys.argv) > 2 else "banded"
t = {"base": {}, "new": {}}
bad = collections.Counter()
for side in t:
    for path in sorted(glob.glob(f"{here}/{prefix}_{side}_*.csv.gz")):
        for r in csv.DictReader(gzip.open(path, "rt")):
            if r["status"] != "ok":
                bad[(side, r["status"])] += 1
                continue
            k = (r["kernel"], r["problem"])
            t[side][k] = min(t[side].get(k, 9e9), float(r["latency_ms"]))
print("rows not ok:", dict(bad))
g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
common = sorted(set(t["base"]) & set(t["new"]))
by_bn = collections.defaultdict(list)
for k in common:
    bn = int(re.search(r"_t\d+x(\d+)x\d+_", k[0]).group(1))
    by_bn[bn].append(t["new"][k] / t["base"][k])
for bn, v in sorted(by_bn.items()):
    print(f"tile_n {bn:3d}: {len(v):4d} pairs, new/base geomean {g(v):.3f}, min {min(v):.3f}, max {max(v):.3f}")
best = collections.defaultdict(dict)
for side in t:
    for (k, p), v in t[side].items():
        if v < best[p].get(side, (9e9, ""))[0]:
            best[p][side] = (v, k)
for p, s in sorted(best.items()):
    if len(s) == 2:
        print(f"{p}: best base {s['base'][0]*1e3:.1f} us ({s['base'][1]}), best new {s['new'][0]*1e3:.1f} us ({s['new'][1]})")
