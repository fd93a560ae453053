"""Session 37: a stratified grid of strided grouped 3D backward-data layers with C/G 8-64 and
K/G 8-64 (multiples of 8: the tensor-core stride-phase kernel's regime, which no training row
covered; session 36's two worst unseen problems were 3D strided backward-data layers on which
the model chose that kernel), for the oracle bench: filters 3x3x3, 1x3x3, 3x1x1 and 1x1x1,
strides 2x2x2 and 1x2x2 (padding F/2), G 2-64, depth 4-16, height = width 14-56, batch 2-8.
Seeded; every geometry (batch aside) of a validation file, of the 3D registry sets or of the
real client's layers is left out, so that they stay unseen.

    python3 results/h100/s37/s3d_grid.py   # writes results/h100/s37/s3d_grid_dgrad.txt
"""
import csv, glob, gzip, random, re, subprocess

VALIDATION = [
    "data/oracle/h200/fwd_2d.shard-3-of-8.csv.gz",
    "data/oracle/h200/dgrad_2d.shard-3-of-8.csv.gz",
    "data/oracle/h200/dgrad_3d.shard-0-of-4.csv.gz",
    "results/h200/s9/unseen_fwd.csv.gz",
    "results/h200/s9/unseen_dgrad.csv.gz",
    "results/h200/s15/call1/unseen_wgrad.csv.gz",
    "results/h200/s25/call_c/keys_fwd.txt",
    "results/h200/s25/call_c/keys_dgrad.txt",
    "results/h200/s25/call_c/keys_wgrad.txt",
    "results/h200/s20/rc_grouped_fwd.txt",
    "results/h200/s20/rc_grouped_dgrad.txt",
    "results/h200/s20/rc_grouped_wgrad.txt",
] + sorted(glob.glob("results/h100/s36/call_2/r/unseen_*.csv.gz"))
REGISTRY = ["forward_3d", "bwd_data_3d", "bwd_weight_3d", "bwd_data_3d_test_validation",
            "validation_holdout"]


def shape(key):
    return re.sub(r"^[a-z_]+?_(f16|bf16|f32)_n\d+_", "", key.strip())


held = set()
for v in VALIDATION:
    if v.endswith(".txt"):
        held |= {shape(k) for k in open(v) if k.strip() and not k.startswith("#")}
    else:
        with gzip.open(v, "rt", newline="") as f:
            held |= {shape(r["problem"]) for r in csv.DictReader(f)}
for s in REGISTRY:
    out = subprocess.run(["target/release/gconv", "problems", s], capture_output=True, text=True)
    held |= {shape(k) for k in out.stdout.split() if "_bf16_" in k or "_f16_" in k or "_f32_" in k}

rng = random.Random(37)
keys = set()
while len(keys) < 32:
    cpg = rng.choice([8, 16, 16, 24, 32, 64])
    kpg = cpg * rng.choice([1, 1, 2]) if cpg < 64 else cpg
    g = rng.choice([2, 4, 8, 16, 32, 64])
    d = rng.choice([4, 8, 16])
    i = rng.choice([14, 28, 56])
    n = rng.choice([2, 4, 8])
    f = rng.choice(["3x3x3", "3x3x3", "1x3x3", "3x1x1", "1x1x1"])
    s = rng.choice(["2x2x2", "1x2x2"])
    p = "x".join(str(int(x) // 2) for x in f.split("x"))
    # keep the tensors of a layer under ~200 MB at bf16
    if n * g * max(cpg, kpg) * d * i * i * 2 > 200e6:
        continue
    key = f"n{n}_g{g}_c{g * cpg}_k{g * kpg}_i{d}x{i}x{i}_f{f}_s{s}_p{p}_d1x1x1"
    if shape("dgrad_bf16_" + key) in held:
        continue
    keys.add(key)
with open("results/h100/s37/s3d_grid_dgrad.txt", "w") as out:
    for k in sorted(keys):
        out.write(f"dgrad_bf16_{k}\n")
print(f"{len(keys)} geometries; {len(held)} held out")
