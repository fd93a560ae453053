#!/usr/bin/env python3
"""Host time per ``gconv.torch`` call once its kernels are cached (run on a GPU machine).

A tiny depthwise convolution (its kernel takes a few µs, so the host is the bottleneck) is
called ``--calls`` times in a row without synchronising; the wall time per call is the host
cost of a call (checks, the cached plan, the output allocation, the launch). Forward alone and
forward + backward, against ``torch.nn.functional.conv2d`` on the same tensors.
"""

import argparse
import time

import torch
import torch.nn.functional as F

import gconv.torch as gt


def per_call_us(fn, calls):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    t1 = time.perf_counter()  # host time: enqueueing only
    torch.cuda.synchronize()
    return (t1 - t0) / calls * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=2000)
    a = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    x = torch.randn(1, 32, 8, 8, device="cuda", dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    w = torch.randn(32, 1, 3, 3, device="cuda", dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    xg = x.clone().requires_grad_(True)
    wg = w.clone().requires_grad_(True)
    dy = torch.randn(1, 32, 8, 8, device="cuda", dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    rows = []
    for name, f in (("gconv", gt.conv2d), ("torch", F.conv2d)):
        fwd = per_call_us(lambda: f(x, w, None, 1, 1, 1, 32), a.calls)
        both = per_call_us(lambda: f(xg, wg, None, 1, 1, 1, 32).backward(dy), a.calls // 2)
        rows.append((name, fwd, both))
    for name, fwd, both in rows:
        print(f"{name}: host time per call: forward {fwd:.1f} us, forward + backward {both:.1f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
