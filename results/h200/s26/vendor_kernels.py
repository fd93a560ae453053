"""Which kernels PyTorch + cuDNN runs for one backward-data or backward-weight layer, and how
long each takes on the GPU (torch.profiler), so that ncu can be pointed at the vendor's kernel.

    python3 vendor_kernels.py KEY [KEY ...]
    python3 vendor_kernels.py --steps S KEY   (no profiler: S more steps, for ncu --launch-skip)

KEY is a gconv problem key (dgrad_/wgrad_/fwd_, 2D). channels_last bf16, cudnn.benchmark on.
"""
import re
import sys

import torch
from torch.profiler import ProfilerActivity, profile

torch.backends.cudnn.benchmark = True


def parse(key):
    m = re.match(r"(fwd|dgrad|wgrad)_bf16_n(\d+)_g(\d+)_c(\d+)_k(\d+)_i(\d+)x(\d+)_f(\d+)x(\d+)"
                 r"_s(\d+)x(\d+)_p(\d+)x(\d+)_d(\d+)x(\d+)$", key)
    if not m:
        sys.exit(f"not a 2D bf16 key: {key}")
    d, *v = m.groups()
    return d, [int(x) for x in v]


def main():
    steps = int(sys.argv[2]) if sys.argv[1] == "--steps" else 0
    keys = sys.argv[3:] if steps else sys.argv[1:]
    for key in keys:
        d, (n, g, c, k, h, w, fy, fx, sy, sx, py, px, dy, dx) = parse(key)
        x = torch.randn(n, c, h, w, device="cuda", dtype=torch.bfloat16).to(
            memory_format=torch.channels_last)
        wt = torch.randn(k, c // g, fy, fx, device="cuda", dtype=torch.bfloat16).to(
            memory_format=torch.channels_last)
        y = torch.nn.functional.conv2d(x, wt, None, (sy, sx), (py, px), (dy, dx), g)
        gy = torch.randn_like(y).contiguous(memory_format=torch.channels_last)
        mask = [d == "dgrad", d == "wgrad", False]

        def step():
            if d == "fwd":
                torch.nn.functional.conv2d(x, wt, None, (sy, sx), (py, px), (dy, dx), g)
            else:
                # only the one gradient: no forward, no other gradient in the profile
                torch.ops.aten.convolution_backward(gy, x, wt, None, [sy, sx], [py, px],
                                                    [dy, dx], False, [0, 0], g, mask)

        for _ in range(5):
            step()
        torch.cuda.synchronize()
        if steps:  # under ncu: the steady state only, no profiler
            for _ in range(steps):
                step()
            torch.cuda.synchronize()
            continue
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(20):
                step()
            torch.cuda.synchronize()
        print(f"== {key}")
        for e in sorted(prof.key_averages(), key=lambda e: -e.device_time_total):
            if e.device_time_total <= 0:
                continue
            print(f"  {e.count:4d} x {e.device_time_total / e.count:9.2f} us  {e.key[:200]}")


if __name__ == "__main__":
    main()
