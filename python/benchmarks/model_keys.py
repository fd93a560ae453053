#!/usr/bin/env python3
"""The problem keys a model's converted convolutions run, per direction (GPU machine, torch).

For each model (torchvision by name, timm as ``timm:NAME``; the construction of
``new_models.py``), ``gconv.torch.convert`` (grouped and depthwise convolutions) and one
forward pass under bf16 autocast that records each converted convolution (gconv.torch's record
pass, which runs torch's own convolutions), then the forward, backward-data and
backward-weight problem keys of every distinct convolution. Writes ``PREFIX_fwd.txt``,
``PREFIX_dgrad.txt`` and ``PREFIX_wgrad.txt`` (one key per line, ``# model`` comments first),
optionally a seeded sample of ``--sample`` keys per direction, for ``gconv bench --problems``:
``auto`` against best-in-pool and cuDNN on layers of model families gconv was not tuned on.
"""

import argparse
import random

import torch

import gconv.torch as gt
from new_models import TIMM, TORCHVISION, make


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", nargs="*", default=TORCHVISION + ["timm:" + m for m in TIMM])
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--sample", type=int, default=0, help="keys per direction, a seeded sample (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--prefix", default="model_keys")
    args = ap.parse_args()
    keys = {d: {} for d in ("fwd", "dgrad", "wgrad")}  # key -> first model that runs it
    for name in args.models:
        try:
            m = make(name, args.seed)
            gt.convert(m, verbose=False)
            x = torch.randn(args.batch, 3, args.size, args.size, device="cuda").to(memory_format=torch.channels_last)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                seen = gt._record_pass(m, (x,), {})
        except Exception as e:  # a model that cannot be built here is named and skipped
            print(f"{name}: skipped ({type(e).__name__}: {e})")
            continue
        n = 0
        for x_shape, w_shape, dtype, stride, padding, dilation, groups, _ in seen:
            for d in keys:
                p = gt._problem(d, tuple(x_shape), tuple(w_shape), gt._DTYPES[dtype], stride, padding, dilation, groups)
                if p.key not in keys[d]:
                    keys[d][p.key] = name
                    n += 1
        print(f"{name}: {len(seen)} converted convolutions, {n} new keys")
        del m
        torch.cuda.empty_cache()
    rng = random.Random(args.seed)
    for d, found in keys.items():
        chosen = sorted(found)
        if args.sample and len(chosen) > args.sample:
            chosen = sorted(rng.sample(chosen, args.sample))
        with open(f"{args.prefix}_{d}.txt", "w") as f:
            f.write(f"# {d}: {len(chosen)} of the {len(found)} distinct keys of {len(args.models)} models "
                    f"(batch {args.batch} at {args.size}^2, bf16; sample seed {args.seed}); the model that runs each\n")
            for k in chosen:
                f.write(f"{k}  # {found[k]}\n")
        print(f"{d}: {len(found)} distinct keys, {len(chosen)} written to {args.prefix}_{d}.txt")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
