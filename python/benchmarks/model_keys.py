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
``--exclude FILE ...`` leaves out every key whose geometry (the key without direction and
dtype) is in those files, so that a training sample stays disjoint from a validation one.
``--meta`` records on PyTorch's meta device (shapes only: the record pass runs torch's own
convolutions, so it needs no GPU and does no arithmetic; gconv.torch's check for CUDA tensors
is bypassed for it, and the model is cast to bf16 instead of running under CUDA autocast).
"""

import argparse
import random
import sys

import torch

import gconv.torch as gt
from new_models import TIMM, TORCHVISION, make


def _geometry(key):
    """A problem key without its direction and dtype (``n16_g32_c32_...``)."""
    return key.split("_", 2)[2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", nargs="*", default=TORCHVISION + ["timm:" + m for m in TIMM])
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--sample", type=int, default=0, help="keys per direction, a seeded sample (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--prefix", default="model_keys")
    ap.add_argument("--exclude", nargs="*", default=[], help="key files whose geometries are left out")
    ap.add_argument("--meta", action="store_true", help="record on the meta device (no GPU needed)")
    args = ap.parse_args()
    device = "meta" if args.meta else "cuda"
    if args.meta:  # the record pass runs torch's convolutions only: let meta tensors through
        gt._check = lambda x, w, rank: None
        gt._GconvConv.forward = lambda self, x: gt._conv(
            self._rank, x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)
    excluded = set()
    for path in args.exclude:
        try:
            with open(path) as f:
                lines = f.read().splitlines()
        except OSError as e:
            print(f"model_keys.py: --exclude {path}: {e.strerror}", file=sys.stderr)
            return 2
        for line in lines:
            key = line.split("#")[0].strip()
            if key.count("_") < 2:
                if key:
                    print(f"model_keys.py: --exclude {path}: {key!r} is not a problem key", file=sys.stderr)
                    return 2
                continue
            excluded.add(_geometry(key))
    keys = {d: {} for d in ("fwd", "dgrad", "wgrad")}  # key -> first model that runs it
    for name in args.models:
        try:
            m = make(name, args.seed, device)
            gt.convert(m, verbose=False)
            x = torch.randn(args.batch, 3, args.size, args.size, device=device).to(memory_format=torch.channels_last)
            if args.meta:  # no CUDA autocast there: the model itself in bf16 gives the same keys
                seen = gt._record_pass(m.to(torch.bfloat16), (x.to(torch.bfloat16),), {})
            else:
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    seen = gt._record_pass(m, (x,), {})
        except Exception as e:  # a model that cannot be built here is named and skipped
            print(f"{name}: skipped ({type(e).__name__}: {e})")
            continue
        n = 0
        for x_shape, w_shape, dtype, stride, padding, dilation, groups, _ in seen:
            for d in keys:
                p = gt._problem(d, tuple(x_shape), tuple(w_shape), gt._DTYPES[dtype], stride, padding, dilation, groups)
                if p.key not in keys[d] and _geometry(p.key) not in excluded:
                    keys[d][p.key] = name
                    n += 1
        print(f"{name}: {len(seen)} converted convolutions, {n} new keys")
        del m
        if not args.meta:
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
