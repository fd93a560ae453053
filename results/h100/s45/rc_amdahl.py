#!/usr/bin/env python3
"""Issue #15's "converted layers 2x faster than PyTorch + cuDNN in aggregate", bounded from
stored bench rows (no GPU): per model (ResNeXt-50 32x4d, RegNetY-800MF) and direction, each
distinct grouped layer weighted by how often the model has it, cuDNN's best time, the roofline
time (cuDNN's time x its roofline fraction, the bench's own column), and the best pool member.
Prints the bound (cuDNN / roofline) and the roofline fraction every layer would need for 2x.

  results/h100/s45/rc_amdahl.py FWD.csv.gz DGRAD.csv.gz WGRAD.csv.gz
"""
import csv, gzip, sys
from collections import defaultdict

# (model, problem suffix after the direction token, how many times the model has it)
LAYERS = [
    ("resnext50_32x4d", "bf16_n64_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1", 3),
    ("resnext50_32x4d", "bf16_n64_g32_c256_k256_i56x56_f3x3_s2x2_p1x1_d1x1", 1),
    ("resnext50_32x4d", "bf16_n64_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1", 3),
    ("resnext50_32x4d", "bf16_n64_g32_c512_k512_i28x28_f3x3_s2x2_p1x1_d1x1", 1),
    ("resnext50_32x4d", "bf16_n64_g32_c512_k512_i14x14_f3x3_s1x1_p1x1_d1x1", 5),
    ("resnext50_32x4d", "bf16_n64_g32_c1024_k1024_i14x14_f3x3_s2x2_p1x1_d1x1", 1),
    ("resnext50_32x4d", "bf16_n64_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1", 2),
    ("regnet_y_800mf", "bf16_n64_g4_c64_k64_i112x112_f3x3_s2x2_p1x1_d1x1", 1),
    ("regnet_y_800mf", "bf16_n64_g9_c144_k144_i56x56_f3x3_s2x2_p1x1_d1x1", 1),
    ("regnet_y_800mf", "bf16_n64_g9_c144_k144_i28x28_f3x3_s1x1_p1x1_d1x1", 2),
    ("regnet_y_800mf", "bf16_n64_g20_c320_k320_i28x28_f3x3_s2x2_p1x1_d1x1", 1),
    ("regnet_y_800mf", "bf16_n64_g20_c320_k320_i14x14_f3x3_s1x1_p1x1_d1x1", 7),
    ("regnet_y_800mf", "bf16_n64_g49_c784_k784_i14x14_f3x3_s2x2_p1x1_d1x1", 1),
    ("regnet_y_800mf", "bf16_n64_g49_c784_k784_i7x7_f3x3_s1x1_p1x1_d1x1", 1),
]


def best_rows(path):
    """Per problem: (cuDNN's best latency, its roofline fraction, best gconv latency, its fraction)."""
    vendor, ours = {}, {}
    with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as f:
        for r in csv.DictReader(f):
            if r["status"] != "ok":
                continue
            lat, frac = float(r["latency_ms"]), float(r["roofline_frac"])
            table = vendor if r["kernel"].startswith("cudnn") else ours
            if r["problem"] not in table or lat < table[r["problem"]][0]:
                table[r["problem"]] = (lat, frac)
    return vendor, ours


def main(paths):
    tot = defaultdict(lambda: [0.0, 0.0, 0.0])  # model -> cuDNN, roofline, gconv (all directions)
    print(f"{'model':16} {'dir':5} {'cuDNN ms':>9} {'roofline ms':>11} {'gconv ms':>9} {'bound':>6} {'gconv':>6} {'2x needs':>8}")
    for path in paths:
        vendor, ours = best_rows(path)
        dirs = {k.split("_", 1)[0] for k in vendor}
        for d in sorted(dirs):
            per = defaultdict(lambda: [0.0, 0.0, 0.0])
            missing = []
            for model, suffix, mult in LAYERS:
                key = f"{d}_{suffix}"
                if key not in vendor or key not in ours:
                    missing.append(key)
                    continue
                (c, cf), (g, _) = vendor[key], ours[key]
                per[model][0] += mult * c
                per[model][1] += mult * c * cf
                per[model][2] += mult * g
            for model, (c, rl, g) in sorted(per.items()):
                for i, v in enumerate((c, rl, g)):
                    tot[model][i] += v
                # 2x: gconv time = c / 2, as a fraction of the roofline time: rl / (c / 2)
                print(f"{model:16} {d:5} {c:9.3f} {rl:11.3f} {g:9.3f} {c / rl:5.2f}x {c / g:5.2f}x {2 * rl / c:8.2f}")
            for k in missing:
                print(f"  (no rows for {k} in {path})")
    for model, (c, rl, g) in sorted(tot.items()):
        print(f"{model:16} {'all':5} {c:9.3f} {rl:11.3f} {g:9.3f} {c / rl:5.2f}x {c / g:5.2f}x {2 * rl / c:8.2f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
