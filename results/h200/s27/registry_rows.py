"""Session 27: session 26's registry rows (calls g-i: the halo sweeps and the pool benches of
the registry's stride-1 layers) as training rows for the model that ranks the pooled halo
tiles. Keeps the pool's four halo tiles of the sweeps (the other 30 halo tiles are not
members) and every row of the pool benches, and leaves out every problem whose geometry, batch
size aside, is one of the validation problems' (the oracle's shard 3 of 8, session 9's unseen
sets, session 25's family layers), so that validation stays unseen.

    python3 results/h200/s27/registry_rows.py   # writes results/h200/s27/registry_{dgrad,fwd}.csv.gz
"""
import csv, gzip, re, sys

S26 = "results/h200/s26"
POOL_HALO = {"t128x64x64_w8x1_s4", "t128x128x64_w8x1_s4", "t64x64x64_w4x1_s5", "t256x64x64_w8x1_s4"}
VALIDATION = [
    "data/oracle/h200/fwd_2d.shard-3-of-8.csv.gz",
    "data/oracle/h200/dgrad_2d.shard-3-of-8.csv.gz",
    "results/h200/s9/unseen_fwd.csv.gz",
    "results/h200/s9/unseen_dgrad.csv.gz",
    "results/h200/s25/call_c/keys_fwd.txt",
    "results/h200/s25/call_c/keys_dgrad.txt",
]


def rows(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", newline="") as f:
        yield from csv.DictReader(f)


def shape(key):
    """The key without direction, dtype and batch: `g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1`."""
    return re.sub(r"^[a-z_]+?_(f16|bf16|f32)_n\d+_", "", key.strip())


held = set()
for v in VALIDATION:
    if v.endswith(".txt"):
        held |= {shape(k) for k in open(v) if k.strip() and not k.startswith("#")}
    else:
        held |= {shape(r["problem"]) for r in rows(v)}

for d, sweep, bench in [
    ("dgrad", f"{S26}/call_g/sweep_halo_registry.csv.gz", f"{S26}/call_h/bench_registry_pool.csv.gz"),
    ("fwd", f"{S26}/call_i/sweep_fwd_halo.csv.gz", f"{S26}/call_i/bench_fwd_pool.csv.gz"),
]:
    out, kept, dropped = [], set(), set()
    fields = None
    for path, halo_only in [(sweep, True), (bench, False)]:
        for r in rows(path):
            fields = fields or list(r.keys())
            if shape(r["problem"]) in held:
                dropped.add(r["problem"])
                continue
            k = r["kernel"]
            if halo_only and not k.startswith("cudnn") and not any(f"_{t}_" in k for t in POOL_HALO):
                continue
            kept.add(r["problem"])
            out.append(r)
    dest = f"results/h200/s27/registry_{d}.csv.gz"
    with gzip.open(dest, "wt", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(out)
    print(f"{dest}: {len(out)} rows, {len(kept)} problems, {len(dropped)} left out as validation geometries", file=sys.stderr)
