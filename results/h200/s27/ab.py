"""Session 27, calls d and e: a halo staging change (new) against every block in k-tile 0's
copy group (base, bcdb8b5), the pool's four halo tiles on session 26's registry layers: per
(kernel, problem) the fastest of each binary's runs in the call's folder, every row verified.

    python3 results/h200/s27/ab.py results/h200/s27/call_d   # or call_e
"""
import csv, glob, gzip, math, os, re, sys, collections
here = sys.argv[1]
for d in ["dgrad", "fwd"]:
    t = {"base": {}, "new": {}}
    bad = 0
    for b in t:
        for path in sorted(glob.glob(f"{here}/{d}_{b}_*.csv.gz")):
            for r in csv.DictReader(gzip.open(path, "rt")):
                if r["status"] == "incorrect":
                    bad += 1
                if r["status"] != "ok":
                    continue
                k = (r["kernel"], r["problem"])
                t[b][k] = min(t[b].get(k, 9e9), float(r["latency_ms"]))
    common = sorted(set(t["base"]) & set(t["new"]))
    ratios = [t["new"][k] / t["base"][k] for k in common]
    cblk = lambda p: int(re.search(r"_k(\d+)_", p).group(1)) // int(re.search(r"_g(\d+)_", p).group(1)) if d == "dgrad" else int(re.search(r"_c(\d+)_", p).group(1)) // int(re.search(r"_g(\d+)_", p).group(1))
    by = collections.defaultdict(list)
    for k, r in zip(common, ratios):
        by[min(cblk(k[1]) // 64, 4)].append(r)
    g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
    print(f"{d}: {len(common)} (kernel, problem) pairs, {bad} incorrect rows; new/base geomean {g(ratios):.3f}, "
          f"min {min(ratios):.3f}, max {max(ratios):.3f}")
    for c in sorted(by):
        v = by[c]
        print(f"  channel blocks {c if c < 4 else '4+'}: {len(v)} pairs, new/base geomean {g(v):.3f}, min {min(v):.3f}, max {max(v):.3f}")
    # per problem: best halo tile
    bp = collections.defaultdict(dict)
    for b in t:
        for (k, p), v in t[b].items():
            bp[p][b] = min(bp[p].get(b, 9e9), v)
    pr = [bp[p]["new"] / bp[p]["base"] for p in bp if len(bp[p]) == 2]
    print(f"  best halo tile per problem ({len(pr)}): new/base geomean {g(pr):.3f}, min {min(pr):.3f}, max {max(pr):.3f}")
