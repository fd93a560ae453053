"""Per-key table of a zoo bench log and torch_baseline.py CSV (one direction, one lease):
best-in-pool, its roofline fraction, auto, cuDNN and PyTorch (best layout), and the ratios.

    python3 table.py BENCH_LOG TORCH_CSV > table.md
"""
import csv
import math
import sys


def main():
    bench, torch_csv = sys.argv[1], sys.argv[2]
    rows = []
    with open(bench) as f:
        for line in f:
            p = line.split()
            if len(p) >= 7 and p[0].split("_")[0] in ("fwd", "dgrad", "wgrad") and p[0].count("_") > 8:
                try:
                    best, roof, auto, base = (float(v) for v in p[1:5])
                except ValueError:
                    continue
                rows.append((p[0], best, roof, auto, base))
    torch = {}
    with open(torch_csv) as f:
        for r in csv.DictReader(f):
            torch[r["problem"]] = (float(r["torch_ms"]), r["torch_layout"])
    print("| key | best-in-pool µs | roofline | auto µs | cuDNN µs | PyTorch µs (layout) | best/cuDNN | auto/cuDNN | best/PyTorch | auto/PyTorch |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    g = {k: [] for k in ("bc", "ac", "bt", "at", "roof")}
    slower = {"cudnn": [], "torch": [], "auto_only": []}
    for key, best, roof, auto, base in rows:
        t, lay = torch.get(key, (math.nan, "-"))
        r = (base / best, base / auto, t / best, t / auto)
        for name, v in zip(("bc", "ac", "bt", "at"), r):
            g[name].append(v)
        g["roof"].append(roof)
        if r[0] < 1:
            slower["cudnn"].append(key)
        if r[2] < 1:
            slower["torch"].append(key)
        if r[0] >= 1 and r[1] < 1:
            slower["auto_only"].append(key)
        short = key.split("_", 1)[1]
        print(f"| `{short}` | {best * 1e3:.1f} | {roof:.3f} | {auto * 1e3:.1f} | {base * 1e3:.1f} | {t * 1e3:.1f} ({lay}) | "
              + " | ".join(f"{v:.2f}×" for v in r) + " |")
    gm = {k: math.exp(sum(map(math.log, v)) / len(v)) for k, v in g.items() if v}
    print()
    print(f"Geomean over {len(rows)} keys: best-in-pool {gm['bc']:.3f}× cuDNN, auto {gm['ac']:.3f}×; "
          f"best-in-pool {gm['bt']:.3f}× PyTorch (best layout), auto {gm['at']:.3f}×; roofline fraction "
          f"{gm['roof']:.3f}. Best-in-pool slower than cuDNN on {len(slower['cudnn'])} "
          f"({', '.join(slower['cudnn'])}), slower than PyTorch on {len(slower['torch'])} "
          f"({', '.join(slower['torch'])}); keys where best-in-pool beats cuDNN but auto does not: "
          f"{len(slower['auto_only'])} ({', '.join(slower['auto_only'])}).")


if __name__ == "__main__":
    main()
