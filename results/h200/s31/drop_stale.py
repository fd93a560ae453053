"""Drops the decisions that `gconv tune` did not re-measure after a pool change: in each
direction and dtype that a tune CSV covers, the entries whose pool hash differs from the hash
the re-tuned entries carry (this build would ignore them as stale); and every entry of a
direction and dtype named with --drop (a pool that changed with no entry re-tuned).
Usage: python3 drop_stale.py IN.json OUT.json [--drop DIRECTION_DTYPE]... TUNE.csv[.gz]..."""
import csv
import gzip
import json
import sys

src, dst, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
drop = {tuple(rest[i + 1].split("_")) for i, a in enumerate(rest) if a == "--drop"}
tunes = [a for i, a in enumerate(rest) if a != "--drop" and (i == 0 or rest[i - 1] != "--drop")]
doc = json.load(open(src))
cls = lambda key: tuple(key.split("_")[:2])
tuned = set()
for t in tunes:
    with (gzip.open if t.endswith(".gz") else open)(t, "rt") as fh:
        tuned |= {r["problem"] for r in csv.DictReader(fh)}
current = {}
for d in doc["decisions"]:
    if d["problem"] in tuned:
        current.setdefault(cls(d["problem"]), set()).add(d["key"]["pool"])
assert all(len(h) == 1 for h in current.values()), current
kept = [
    d
    for d in doc["decisions"]
    if cls(d["problem"]) not in drop
    and (cls(d["problem"]) not in current or d["key"]["pool"] in current[cls(d["problem"])])
]
for c in sorted({cls(d["problem"]) for d in doc["decisions"]}):
    n = sum(cls(d["problem"]) == c for d in doc["decisions"])
    m = sum(cls(d["problem"]) == c for d in kept)
    print(f"{c[0]} {c[1]}: {n} entries, {m} kept")
doc["decisions"] = kept
with open(dst, "w") as fh:
    json.dump(doc, fh, indent=2)
    fh.write("\n")
