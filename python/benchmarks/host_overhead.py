#!/usr/bin/env python3
"""Host time per ``gconv.torch`` call once its kernels are cached (run on a GPU machine).

A tiny depthwise convolution is called ``--calls`` times in a row behind a long sleep kernel,
so that no call waits for the GPU: the wall time per call is the host cost of a call (checks,
the cached plan, the output allocation, the launches). Forward alone and forward + backward
(both gradients), against ``torch.nn.functional.conv2d`` on the same tensors; the GPU time per
call is printed beside it.
"""

import argparse
import time

import torch
import torch.nn.functional as F

import gconv.torch as gt


def per_call_us(fn, calls):
    """(host µs, GPU µs) per call. Host: the wall time of ``calls`` calls enqueued behind a
    long sleep kernel, so that no call waits for the GPU (the launch queue holds them all).
    GPU: CUDA events around the same number of calls, divided by it."""
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    torch.cuda._sleep(int(2e9))  # about a second of GPU time ahead of the calls
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    host = (time.perf_counter() - t0) / calls * 1e6
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(calls):
        fn()
    b.record()
    torch.cuda.synchronize()
    return host, a.elapsed_time(b) * 1e3 / calls


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=200)
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
        both = per_call_us(lambda: torch.autograd.grad(f(xg, wg, None, 1, 1, 1, 32), (xg, wg), dy), a.calls)
        rows.append((name, fwd, both))
    for name, (fh, fg), (bh, bg) in rows:
        print(
            f"{name}: host time per call: forward {fh:.1f} us (GPU {fg:.1f} us), "
            f"forward + backward {bh:.1f} us (GPU {bg:.1f} us)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
