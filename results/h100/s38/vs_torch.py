"""Joins the table of `gconv report` (best-in-pool, auto and cuDNN per key) with
`torch_baseline.py --graph` times of the same keys: per key the ratios over PyTorch's best
layout, the geomeans, and the keys slower than either baseline.
Usage: python3 vs_torch.py REPORT.txt TORCH.csv[.gz]"""
import csv
import gzip
import math
import sys

rep, tor = sys.argv[1], sys.argv[2]
torch = {}
with (gzip.open if tor.endswith(".gz") else open)(tor, "rt") as fh:
    for r in csv.DictReader(fh):
        if r["torch_ms"]:
            torch[r["problem"]] = (float(r["torch_ms"]), r["torch_layout"])
rows = []
for line in open(rep):
    f = line.split()
    # Columns 5 and 6 are best/base and auto/base (session 44 appended the model's own two).
    if len(f) >= 7 and f[0] in torch and f[5].endswith("x") and f[6].endswith("x"):
        rows.append((f[0], float(f[1]), float(f[2]), float(f[3]), float(f[4])))
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
print(f"{'problem':60s} {'best':>8s} {'auto':>8s} {'cudnn':>8s} {'torch':>8s} lay  best/cud auto/cud best/tor auto/tor")
for p, best, roof, auto, base in rows:
    t, lay = torch[p]
    print(f"{p[:60]:60s} {best*1e3:8.2f} {auto*1e3:8.2f} {base*1e3:8.2f} {t*1e3:8.2f} {lay:4s} {base/best:7.3f} {base/auto:8.3f} {t/best:8.3f} {t/auto:8.3f}")
n = len(rows)
print(f"{n} keys: best/cuDNN {g([r[4]/r[1] for r in rows]):.3f}, auto/cuDNN {g([r[4]/r[3] for r in rows]):.3f}, "
      f"best/PyTorch {g([torch[r[0]][0]/r[1] for r in rows]):.3f}, auto/PyTorch {g([torch[r[0]][0]/r[3] for r in rows]):.3f}, "
      f"roofline {g([r[2] for r in rows]):.3f}")
print("best slower than cuDNN:", sum(r[4] < r[1] for r in rows), " than PyTorch:", sum(torch[r[0]][0] < r[1] for r in rows),
      "; auto slower than cuDNN:", sum(r[4] < r[3] for r in rows), " than PyTorch:", sum(torch[r[0]][0] < r[3] for r in rows))
