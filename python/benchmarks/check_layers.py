#!/usr/bin/env python3
"""Every convolution of torchvision models, on gconv through ``gconv.torch``, against
``torch.nn.functional`` in float64: forward, input gradient and weight gradient of each layer
that ``gconv.torch.convert`` would swap (``--dense`` adds the dense ones), on the shapes the
model gives it (batch and image size as given), in bf16 (or ``--dtype``). Prints one line per
layer and direction that is outside the tolerance, and a summary; exits 1 if any is.
"""

import argparse
import sys

import torch
import torch.nn.functional as F
import torchvision

import gconv.torch as gt

TOL = {torch.float32: 1e-4, torch.float16: 4e-3, torch.bfloat16: 3e-2}
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}


def rel(got, want):
    return ((got.double() - want).abs().max() / want.abs().max().clamp_min(1e-30)).item()


def shapes_of(name, batch, size):
    m = getattr(torchvision.models, name)(weights=None).cuda().eval()
    seen, hooks = [], []
    for n, mod in m.named_modules():
        if isinstance(mod, torch.nn.modules.conv._ConvNd):
            hooks.append(mod.register_forward_pre_hook(lambda mod, inp, n=n: seen.append((n, mod, tuple(inp[0].shape)))))
    with torch.no_grad():
        m(torch.randn(batch, 3, size, size, device="cuda"))
    for h in hooks:
        h.remove()
    return seen


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="+", required=True)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--dtype", default="bf16", choices=sorted(DTYPES))
    ap.add_argument("--dense", action="store_true", help="check the dense convolutions too")
    a = ap.parse_args()
    dtype = DTYPES[a.dtype]
    checked = bad = 0
    done = set()
    for name in a.models:
        for n, m, xs in shapes_of(name, a.batch, a.size):
            if gt._kind(m) in ("dense", "pointwise") and not a.dense:
                continue
            key = (xs, tuple(m.weight.shape), m.stride, m.padding, m.dilation, m.groups)
            if key in done:
                continue
            done.add(key)
            torch.manual_seed(0)
            x = torch.randn(xs, device="cuda").to(dtype).to(memory_format=torch.channels_last)
            w = (torch.randn(m.weight.shape, device="cuda") / (m.weight[0].numel() ** 0.5)).to(dtype)
            w = w.to(memory_format=torch.channels_last)
            x.requires_grad_(True)
            w.requires_grad_(True)
            args = (m.stride, m.padding, m.dilation, m.groups)
            y = gt.conv2d(x, w, None, *args)
            dy = torch.randn(y.shape, device="cuda").to(dtype).to(memory_format=torch.channels_last)
            dx, dw = torch.autograd.grad(y, (x, w), dy)
            x64 = x.detach().double().requires_grad_(True)
            w64 = w.detach().double().requires_grad_(True)
            y64 = F.conv2d(x64, w64, None, *args)
            dx64, dw64 = torch.autograd.grad(y64, (x64, w64), dy.double())
            for d, got, want in (("fwd", y, y64), ("dgrad", dx, dx64), ("wgrad", dw, dw64)):
                checked += 1
                e = rel(got, want)
                if not e < TOL[dtype]:
                    bad += 1
                    p = gt._problem(d, tuple(x.shape), tuple(w.shape), a.dtype, *[tuple(v) for v in args[:3]], args[3])
                    r = gt.runner(p, 0)
                    print(f"FAIL {name} {n} {d}: max rel err {e:.3g} ({p.key}, {r.kernel})", flush=True)
    print(f"check_layers: {checked} layer directions checked, {bad} outside tolerance ({a.dtype}, batch {a.batch}, {a.size}x{a.size})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
