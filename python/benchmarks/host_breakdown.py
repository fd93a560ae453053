#!/usr/bin/env python3
"""Where a converted model's eager training step spends its extra time (GPU machine, torch).

``host_overhead.py`` measures one convolution alone; in a model the eager step of a
converted network has been slower than PyTorch's by far more than that per converted
convolution. This script takes one model apart (random weights, channels_last, bf16 autocast,
``cudnn.benchmark=True``, the training step of ``real_client.py``), each variant timed as the
median of synchronised steps after warm-up:

- ``torch``: the model as it is;
- ``gconv``: ``gconv.torch.convert(model)``, with wall-clock accumulators around gconv's own
  Python layers (the module call, the autograd Function's forward and backward, the launch
  helper and its plan lookup), so that the time spent inside gconv per step is known;
- ``gconv, no launch``: the same, but the launch helper only allocates the output (no kernel
  runs; the numbers are garbage): the host cost of everything but the launches.

Per variant it prints the step time, the per-step time in each gconv layer, and the extra time
per converted convolution against ``torch``. The variants alternate in rounds, so that a drift
of the host's speed hits each alike.
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", nargs="*", default=["convnext_tiny", "regnet_y_800mf"])
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--iters", type=int, default=5, help="steps per variant per round")
    ap.add_argument("--rounds", type=int, default=4, help="alternating rounds over the variants")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True

    acc = Accumulators()
    orig = {"_conv": gt._conv, "_launch": gt._launch, "_plan": gt._plan}
    fwd, bwd = gt._Conv.forward, gt._Conv.backward
    torch_conv = {r: acc.wrap(f"torch conv{r}d", f) for r, f in gt._TORCH_CONV.items()}
    saved_torch = {r: getattr(torch.nn.functional, f"conv{r}d") for r in torch_conv}

    def no_launch(direction, a, b, x_shape, w_shape, stride, padding, dilation, groups):
        _, out_shape, _, fmt = gt._plan(direction, x_shape, w_shape, a.dtype, stride, padding, dilation, groups, a.get_device())
        return gt._empty_output(out_shape, fmt, a)

    def patch(label):
        """Installs the timers of variant ``label``; returns the function that removes them."""
        if label == "torch":
            for r, f in torch_conv.items():
                setattr(torch.nn.functional, f"conv{r}d", f)
        else:
            gt._conv = acc.wrap("module call (_conv)", orig["_conv"])
            gt._plan = acc.wrap("plan lookup (_plan)", orig["_plan"])
            gt._launch = acc.wrap("launch helper (_launch)", orig["_launch"] if label == "gconv" else no_launch)
            gt._Conv.forward = staticmethod(acc.wrap("Function.forward", fwd))
            gt._Conv.backward = staticmethod(acc.wrap("Function.backward", bwd))

        def unpatch():
            for r, f in saved_torch.items():
                setattr(torch.nn.functional, f"conv{r}d", f)
            gt._conv, gt._launch, gt._plan = orig["_conv"], orig["_launch"], orig["_plan"]
            gt._Conv.forward, gt._Conv.backward = staticmethod(fwd), staticmethod(bwd)

        return unpatch

    for name in args.models:
        base = make(name, args.seed)
        x = torch.randn(args.batch, 3, args.size, args.size, device="cuda").to(memory_format=torch.channels_last)
        target = torch.randint(0, 1000, (args.batch,), device="cuda")
        conv = copy.deepcopy(base)
        swapped = sum(1 for _, r in gt.convert(conv, verbose=False) if r == "swapped")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            gt.precompile(conv, x, verbose=False)
        variants = {}
        for label, model in (("torch", base), ("gconv", conv), ("gconv, no launch", conv)):
            m = copy.deepcopy(model)
            opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
            unpatch = patch(label)
            try:
                for i in range(3):  # warm-up
                    step(m, opt, x, target, args.seed + i)
                torch.cuda.synchronize()
            finally:
                unpatch()
            variants[label] = {"model": m, "opt": opt, "ms": [], "time": collections.Counter(), "calls": collections.Counter()}
        for rnd in range(args.rounds):  # alternating, so that a drift of the host hits every variant alike
            for label, v in variants.items():
                unpatch = patch(label)
                acc.reset()
                try:
                    for i in range(args.iters):
                        t0 = time.perf_counter()
                        step(v["model"], v["opt"], x, target, args.seed + i)
                        torch.cuda.synchronize()
                        v["ms"].append((time.perf_counter() - t0) * 1e3)
                finally:
                    unpatch()
                v["time"].update(acc.time)
                v["calls"].update(acc.calls)
        steps = args.rounds * args.iters
        base_ms = statistics.median(variants["torch"]["ms"])
        print(f"== {name} (batch {args.batch}, {swapped} convolutions swapped), {args.rounds} alternating rounds "
              f"of {args.iters} steps per variant after warm-up")
        for label, v in variants.items():
            ts = sorted(v["ms"])
            med = statistics.median(ts)
            p90 = ts[min(len(ts) - 1, int(0.9 * len(ts)))]
            line = f"{label:>18}: step median {med:.2f} ms (P90 {p90:.2f})"
            if label != "torch" and swapped:
                line += f", {(med - base_ms) / swapped * 1e3:+.0f} us per swapped convolution vs torch"
            print(line)
            for k in sorted(v["time"]):
                t, c = v["time"][k], v["calls"][k]
                print(f"{'':>20}{k}: {t / steps * 1e3:.2f} ms per step, {c // steps} calls, {t / max(c, 1) * 1e6:.1f} us per call")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
