#!/usr/bin/env python3
"""gconv.torch's own host time per call, measured without a GPU (torch, no CUDA device).

The launch helper is replaced by a stand-in that only allocates the output (so no kernel and
no GPU is involved) and the CUDA-tensor check is bypassed; what remains is the Python and
autograd cost that ``gconv.torch`` adds around its launches: argument handling, the autograd
node, the casts, the bias, the output allocation. With ``--autocast`` the call is made as a
bf16 autocast training step makes it (float32 input, weight and bias; the casts to bf16 and the
bias inside the node), simulated on the CPU. Each package directory given is measured in its
own process, alternating, ``--runs`` times (the best of 7 repeats of ``--calls`` calls each):
``python3 host_cpu.py PKG_A PKG_B`` compares two versions of the package.
"""

import argparse
import subprocess
import sys

CHILD = r"""
import sys, timeit
sys.path.insert(0, sys.argv[1])
import torch
import gconv.torch as gt

def stand_in_launch(direction, a, b, x_shape, w_shape, stride, padding, dilation, groups):
    out = {"fwd": [x_shape[0], w_shape[0]] + list(x_shape[2:]), "dgrad": list(x_shape), "wgrad": list(w_shape)}
    return torch.empty(out[direction], dtype=a.dtype, memory_format=torch.channels_last)

gt._launch = stand_in_launch
gt._check = lambda x, w, rank: None
autocast = sys.argv[2] == "1"
calls = int(sys.argv[3])
if autocast:  # what bf16 autocast on CUDA asks of gconv.torch, simulated on the CPU
    torch.is_autocast_enabled = lambda *a: True
    torch.get_autocast_dtype = lambda *a: torch.bfloat16
cl = torch.channels_last
x = torch.randn(1, 32, 8, 8).to(memory_format=cl).requires_grad_(True)
w = torch.randn(32, 1, 3, 3).to(memory_format=cl).requires_grad_(True)
b = torch.randn(32, requires_grad=True) if autocast else None
dy = torch.randn(1, 32, 8, 8, dtype=torch.bfloat16 if autocast else torch.float32).to(memory_format=cl)

def fwd():
    with torch.no_grad():
        gt.conv2d(x, w, b, 1, 1, 1, 32)

def both():
    gt.conv2d(x, w, b, 1, 1, 1, 32).backward(dy)

for name, fn in (("forward", fwd), ("forward+backward", both)):
    for _ in range(300):
        fn()
    us = min(timeit.repeat(fn, number=calls, repeat=7)) / calls * 1e6
    print(f"{name}={us:.2f}")
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("packages", nargs="+", help="directories that hold a gconv package (gconv/torch.py and _gconv)")
    ap.add_argument("--autocast", action="store_true", help="float32 operands and a bias under simulated bf16 autocast")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--calls", type=int, default=2000)
    a = ap.parse_args()
    rows = {p: [] for p in a.packages}
    for _ in range(a.runs):
        for p in a.packages:
            run = subprocess.run(
                [sys.executable, "-c", CHILD, p, "1" if a.autocast else "0", str(a.calls)],
                capture_output=True, text=True,
            )
            if run.returncode != 0:
                last = (run.stderr.strip().splitlines() or ["(no message)"])[-1]
                print(f"host_cpu.py: measuring the package in {p!r} failed: {last}", file=sys.stderr)
                return 2
            rows[p].append(dict((k, float(v)) for k, v in (line.split("=") for line in run.stdout.split())))
    mode = "bf16 autocast, with bias" if a.autocast else "one dtype, no bias"
    for p, runs in rows.items():
        for name in ("forward", "forward+backward"):
            vals = ", ".join(f"{r[name]:.1f}" for r in runs)
            print(f"{p} ({mode}) {name}: {vals} us per call")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
