"""Call g's halo path against call h's default pool on the same layers (one day, two leases):
per layer the best halo tile, the best pool member and cuDNN (each call's own cuDNN run), and
the summary; with --pick, the greedy choice of halo tiles that keeps most of the halo's best.

    python3 halo_vs_pool.py call_g/sweep_halo_registry.csv.gz call_h/bench_registry_pool.csv.gz
"""
import csv
import gzip
import math
import sys


def best(path):
    gc, cu = {}, {}
    for r in csv.DictReader(gzip.open(path, "rt")):
        if r["status"] != "ok":
            continue
        t, p = float(r["latency_ms"]), r["problem"]
        d = cu if r["kernel"].startswith("cudnn") else gc
        if p not in d or t < d[p][0]:
            d[p] = (t, r["kernel"])
    return gc, cu


def main():
    halo, cu_g = best(sys.argv[1])
    pool, cu_h = best(sys.argv[2])
    both = sorted(set(halo) & set(pool))
    print(f"{'layer':58s} {'halo':>8s} {'pool':>8s} {'cuDNN':>8s} {'halo/pool':>9s}  pool's best")
    r_hp, r_pc, r_bc = [], [], []
    for p in both:
        h, b = halo[p][0], pool[p][0]
        c = min(x[0] for x in (cu_g.get(p), cu_h.get(p)) if x)
        r_hp.append(h / b)
        r_pc.append(c / b)
        r_bc.append(c / min(h, b))
        kern = pool[p][1].replace("_gm1_sk1d", "")
        print(f"{p.split('_', 1)[1]:58s} {h * 1e3:8.2f} {b * 1e3:8.2f} {c * 1e3:8.2f} {h / b:9.3f}  {kern}")
    g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
    print(f"{len(both)} layers: halo faster than best-in-pool on {sum(x < 1 for x in r_hp)}, "
          f"geomean halo/pool {g(r_hp):.3f} (best {min(r_hp):.3f}, worst {max(r_hp):.3f}); "
          f"best-in-pool vs cuDNN {g(r_pc):.3f}x (slower on {sum(x < 1 for x in r_pc)}), "
          f"with the halo tiles {g(r_bc):.3f}x (slower on {sum(x < 1 for x in r_bc)})")


if __name__ == "__main__":
    main()
