"""Session 27: a stratified grid of strided grouped layers with C/G 8-32 (the regime where the
shipped model's forward first choice is weakest on the real client's layers, `README.md`), for
the next oracle sweep: 3x3 stride 2 pad 1 (and a few 1x1 stride 2), C/G in {8, 12, 16, 24, 32},
K/G = C/G or 2 C/G, G from 4 to 64, input 14-112, batch 8-64, each key in forward, backward data
and backward weight. Seeded; every geometry (batch aside) of a validation file or of the real
client's layers is left out, so that both stay unseen.

    python3 results/h200/s27/s2_grid.py   # writes results/h200/s27/s2_grid_{fwd,dgrad,wgrad}.txt
"""
import csv, gzip, random, re

VALIDATION = [
    "data/oracle/h200/fwd_2d.shard-3-of-8.csv.gz",
    "data/oracle/h200/dgrad_2d.shard-3-of-8.csv.gz",
    "results/h200/s9/unseen_fwd.csv.gz",
    "results/h200/s9/unseen_dgrad.csv.gz",
    "results/h200/s15/call1/unseen_wgrad.csv.gz",
    "results/h200/s25/call_c/keys_fwd.txt",
    "results/h200/s25/call_c/keys_dgrad.txt",
    "results/h200/s25/call_c/keys_wgrad.txt",
    "results/h200/s20/rc_grouped_fwd.txt",
    "results/h200/s20/rc_grouped_dgrad.txt",
    "results/h200/s20/rc_grouped_wgrad.txt",
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

rng = random.Random(27)
keys = set()
while len(keys) < 48:
    cpg = rng.choice([8, 12, 16, 24, 32])
    kpg = cpg * rng.choice([1, 1, 2])
    g = rng.choice([4, 8, 9, 16, 20, 32, 49, 64])
    i = rng.choice([14, 28, 56, 112])
    n = rng.choice([8, 16, 32, 64])
    f, p = (1, 0) if rng.random() < 0.15 else (3, 1)
    # keep the tensors of a layer under ~200 MB at bf16
    if n * g * max(cpg, kpg) * i * i * 2 > 200e6:
        continue
    key = f"n{n}_g{g}_c{g * cpg}_k{g * kpg}_i{i}x{i}_f{f}x{f}_s2x2_p{p}x{p}_d1x1"
    if shape("fwd_bf16_" + key) in held:
        continue
    keys.add(key)
for d in ["fwd", "dgrad", "wgrad"]:
    with open(f"results/h200/s27/s2_grid_{d}.txt", "w") as out:
        for k in sorted(keys):
            out.write(f"{d}_bf16_{k}\n")
print(f"{len(keys)} geometries per direction")
