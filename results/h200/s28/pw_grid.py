"""Session 28: a stratified grid of grouped pointwise layers (1x1 filters, stride 2 or 1), the
model's weakest regime after the stride-2 grid (`retrain.md`: its worst cross-validation
problems are 1x1 stride-2 layers, where it ranked a direct tile first and an igemm tile is
1.8-3x faster; the stride-2 grid held few 1x1 geometries). C/G in {8, 16, 24, 32, 48, 64},
K/G = C/G or 2 C/G, G from 1 to 64, input 14-112, batch 8-64, stride 2 for two thirds of
them; each key in forward, backward data and backward weight. Seeded; every geometry (batch
aside) of a file `gconv validate` reads in retrain.md, of the real client's layers and of the
stride-2 grid is left out, so that the validation sets stay unseen.

    python3 results/h200/s28/pw_grid.py   # writes results/h200/s28/pw_grid_{fwd,dgrad,wgrad}.txt
"""
import csv, gzip, random, re

A = "results/h200/s27/call_a"
D = "data/oracle/h200"
VALIDATION = [
    "results/h200/s15/call1/unseen_wgrad.csv.gz",
    "results/h200/s9/unseen_fwd.csv.gz",
    "results/h200/s9/unseen_dgrad.csv.gz",
    f"{D}/fwd_2d.shard-3-of-8.csv.gz",
    f"{D}/dgrad_2d.shard-3-of-8.csv.gz",
    f"{D}/dgrad_3d.shard-0-of-4.csv.gz",
    "results/h200/s22/call_c/wgrad_s3.csv.gz",
    f"{A}/halo_dgrad_2d_s3.shard-3-of-8.csv.gz",
    f"{A}/halo_fwd_2d_s3.shard-3-of-8.csv.gz",
    "results/h200/s25/call_c/bench_fwd.csv.gz",
    "results/h200/s25/call_c/bench_dgrad.csv.gz",
    "results/h200/s25/call_c/bench_wgrad.csv.gz",
    f"{A}/halo_fwd_family_val.csv.gz",
    f"{A}/halo_dgrad_family_val.csv.gz",
    "results/h200/s20/call_c/rc_fwd.csv.gz",
    "results/h200/s20/call_a/rc_dgrad.csv.gz",
    "results/h200/s20/call_c/rc_wgrad.csv.gz",
    "results/h200/s20/rc_grouped_fwd.txt",
    "results/h200/s20/rc_grouped_dgrad.txt",
    "results/h200/s20/rc_grouped_wgrad.txt",
    "results/h200/s27/s2_grid_fwd.txt",
]


def shape(key):
    return re.sub(r"^[a-z_]+?_(f16|bf16|f32)_n\d+_", "", key.strip())


held = set()
for v in VALIDATION:
    if v.endswith(".txt"):
        held |= {shape(k) for k in open(v) if k.strip() and not k.startswith("#")}
    else:
        with gzip.open(v, "rt", newline="") as f:
            held |= {shape(r["problem"]) for r in csv.DictReader(f)}

rng = random.Random(28)
keys = set()
while len(keys) < 48:
    cpg = rng.choice([8, 16, 24, 32, 48, 64])
    kpg = cpg * rng.choice([1, 1, 2])
    g = rng.choice([1, 2, 4, 8, 16, 20, 32, 49, 64])
    i = rng.choice([14, 28, 56, 112])
    n = rng.choice([8, 16, 32, 64])
    s = 2 if rng.random() < 2 / 3 else 1
    # keep the tensors of a layer under ~200 MB at bf16
    if n * g * max(cpg, kpg) * i * i * 2 > 200e6:
        continue
    key = f"n{n}_g{g}_c{g * cpg}_k{g * kpg}_i{i}x{i}_f1x1_s{s}x{s}_p0x0_d1x1"
    if shape("fwd_bf16_" + key) in held:
        continue
    keys.add(key)
for d in ["fwd", "dgrad", "wgrad"]:
    with open(f"results/h200/s28/pw_grid_{d}.txt", "w") as out:
        for k in sorted(keys):
            out.write(f"{d}_bf16_{k}\n")
print(f"{len(keys)} geometries per direction, {len(held)} held-out geometries")
