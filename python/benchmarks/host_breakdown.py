#!/usr/bin/env python3
"""Where a converted model's eager training step spends its extra time (GPU machine, torch).

``host_overhead.py`` measures one convolution alone; in a model the eager step of a
converted network has been slower than PyTorch's by far more than that per converted
convolution. This script takes one model apart (random weights, channels_last, bf16 autocast,
``cudnn.benchmark=True``, the training step of ``real_client.py``), each variant timed as the
median of ``--iters`` synchronised steps after warm-up:

- ``torch``: the model as it is;
- ``gconv``: ``gconv.torch.convert(model)``, with wall-clock accumulators around gconv's own
  Python layers (the module call, the autograd Function's forward and backward, the launch
  helper and its plan lookup), so that the time spent inside gconv per step is known;
- ``gconv, no launch``: the same, but the launch helper only allocates the output (no kernel
  runs; the numbers are garbage): the host cost of everything but the launches.

Per variant it prints the step time, the per-step time in each gconv layer, and the extra time
per converted convolution against ``torch``.
"""

import argparse
import collections
import copy
import statistics
import time

import torch

import gconv.torch as gt
from new_models import make  # the same model construction
from real_client import step  # the same training step


class Accumulators:
    """Wall time and calls per name, around wrapped functions."""

    def __init__(self):
        self.time = collections.defaultdict(float)
        self.calls = collections.Counter()

    def wrap(self, name, f):
        def timed(*a, **k):
            t0 = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                self.time[name] += time.perf_counter() - t0
                self.calls[name] += 1

        return timed

    def reset(self):
        self.time.clear()
        self.calls.clear()


def step_times(model, x, target, seed, iters, warmup=3):
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for i in range(warmup):
        step(model, opt, x, target, seed + i)
    torch.cuda.synchronize()
    ts = []
    for i in range(iters):
        t0 = time.perf_counter()
        step(model, opt, x, target, seed + i)
        torch.cuda.synchronize()
        ts.append((time.perf_counter() - t0) * 1e3)
    return ts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", nargs="*", default=["convnext_tiny", "regnet_y_800mf"])
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True

    acc = Accumulators()
    orig = {"_conv": gt._conv, "_launch": gt._launch, "_plan": gt._plan}
    wrapped = {
        "_conv": acc.wrap("module call (_conv)", gt._conv),
        "_launch": acc.wrap("launch helper (_launch)", gt._launch),
        "_plan": acc.wrap("plan lookup (_plan)", gt._plan),
    }
    fwd, bwd = gt._Conv.forward, gt._Conv.backward
    torch_conv = {r: acc.wrap(f"torch conv{r}d", f) for r, f in gt._TORCH_CONV.items()}

    def no_launch(direction, a, b, x_shape, w_shape, stride, padding, dilation, groups):
        dev = a.device
        device = dev.index if dev.index is not None else torch.cuda.current_device()
        _, out_shape, _ = gt._plan(direction, x_shape, w_shape, a.dtype, stride, padding, dilation, groups, device)
        fmt = gt._CL.get(len(out_shape))
        if fmt is not None:
            return torch.empty(out_shape, dtype=a.dtype, device=dev, memory_format=fmt)
        return gt._empty_channels_last(out_shape, a)

    for name in args.models:
        base = make(name, args.seed)
        x = torch.randn(args.batch, 3, args.size, args.size, device="cuda").to(memory_format=torch.channels_last)
        target = torch.randint(0, 1000, (args.batch,), device="cuda")
        conv = copy.deepcopy(base)
        swapped = sum(1 for _, r in gt.convert(conv, verbose=False) if r == "swapped")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            gt.precompile(conv, x, verbose=False)
        rows = {}
        # torch, with its convolution functions timed (module forwards look them up per call).
        saved = {r: getattr(torch.nn.functional, f"conv{r}d") for r in torch_conv}
        for r, f in torch_conv.items():
            setattr(torch.nn.functional, f"conv{r}d", f)
        acc.reset()
        rows["torch"] = (step_times(copy.deepcopy(base), x, target, args.seed, args.iters), dict(acc.time), dict(acc.calls))
        for r, f in saved.items():
            setattr(torch.nn.functional, f"conv{r}d", f)
        for label, launcher in (("gconv", wrapped["_launch"]), ("gconv, no launch", acc.wrap("launch helper (_launch)", no_launch))):
            gt._conv, gt._launch, gt._plan = wrapped["_conv"], launcher, wrapped["_plan"]
            gt._Conv.forward = staticmethod(acc.wrap("Function.forward", fwd))
            gt._Conv.backward = staticmethod(acc.wrap("Function.backward", bwd))
            acc.reset()
            try:
                ts = step_times(copy.deepcopy(conv), x, target, args.seed, args.iters)
            finally:
                gt._conv, gt._launch, gt._plan = orig["_conv"], orig["_launch"], orig["_plan"]
                gt._Conv.forward, gt._Conv.backward = staticmethod(fwd), staticmethod(bwd)
            rows[label] = (ts, dict(acc.time), dict(acc.calls))
        base_ms = statistics.median(rows["torch"][0])
        print(f"== {name} (batch {args.batch}, {swapped} convolutions swapped), {args.iters} steps after warm-up")
        steps = args.iters + 3
        for label, (ts, tm, calls) in rows.items():
            med = statistics.median(ts)
            extra = (med - base_ms) / swapped * 1e3 if swapped and label != "torch" else 0.0
            print(f"{label:>18}: step median {med:.2f} ms (min {min(ts):.2f}, max {max(ts):.2f})"
                  + (f", {extra:+.0f} us per swapped convolution vs torch" if label != "torch" else ""))
            for k in sorted(tm):
                print(f"{'':>20}{k}: {tm[k] / steps * 1e3:.2f} ms per step, {calls[k] // steps} calls, "
                      f"{tm[k] / max(calls[k], 1) * 1e6:.1f} us per call")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
