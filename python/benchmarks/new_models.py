#!/usr/bin/env python3
"""Models gconv was not tuned on, converted and trained as a new user would (GPU machine, torch).

For each model (torchvision by name, timm as ``timm:NAME``; random weights, channels_last,
bf16 autocast, ``cudnn.benchmark=True``, batch ``--batch`` at ``--size``²):

1. ``gconv.torch.convert(model)`` (grouped and depthwise convolutions; what it left and why,
   counted by reason) and ``gconv.torch.precompile`` for the input shape (its time);
2. **numerics**: one training step without an update three ways from one state — PyTorch in
   float32 without TF32 (the reference), PyTorch in bf16 autocast, the converted model in bf16
   autocast — the losses, and every parameter gradient's relative L2 error against the
   reference for PyTorch and for gconv (both carry bf16 rounding: gconv matches when its
   errors are the size of PyTorch's own; the verdict asks the median ratio ≤ 1.5 and the
   worst gradient of a swapped convolution within 3× PyTorch's worst there, or 0.05);
3. **training**: ``--steps`` SGD steps (momentum 0.9) on PyTorch and on the converted model
   from the same state and data, the loss of every step (the step and the error measure are
   ``real_client.py``'s);
4. **time**: the eager training step, median and P90 of 4 alternating rounds of ``--iters``
   steps on each side, PyTorch vs gconv
   (``--profile``: torch.profiler tables of three steps on each side).

A model that raises is reported with the exception and the run goes on. Writes one JSON object
per model to ``--out`` and prints a table.
"""

import argparse
import copy
import json
import statistics
import sys
import time
import traceback

import torch
import torchvision

import gconv.torch as gt
from real_client import rel_l2, step  # the same training step and error measure

TORCHVISION = [
    "shufflenet_v2_x1_0", "mnasnet1_0", "mobilenet_v2", "efficientnet_v2_s", "regnet_x_400mf",
    "regnet_y_1_6gf", "resnext101_32x8d", "convnext_small",
]
TIMM = [
    "mixnet_s", "ghostnet_100", "rexnet_100", "tf_efficientnet_b0", "convnextv2_atto",
    "inception_next_tiny", "edgenext_xx_small", "resnest14d", "skresnet18", "xception41",
    "dpn68", "repvit_m1", "fastvit_t8", "mobilenetv4_conv_small", "lcnet_050",
]


def make(name, seed, device="cuda"):
    torch.manual_seed(seed)
    if name.startswith("timm:"):
        import timm

        m = timm.create_model(name[5:], pretrained=False, num_classes=1000)
    else:
        m = getattr(torchvision.models, name)(weights=None)
    return m.to(device).to(memory_format=torch.channels_last).train()


def numerics(base, conv, x, target, seed):
    ref = copy.deepcopy(base)
    torch_side = copy.deepcopy(base)
    tf32 = (torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32)
    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    try:
        lr = step(ref, None, x, target, seed, autocast=False)
    finally:
        torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = tf32
    lb = step(torch_side, None, x, target, seed)
    lc = step(conv, None, x, target, seed)
    swapped = {n + ".weight" for n, m in conv.named_modules() if isinstance(m, (gt.Conv1d, gt.Conv2d, gt.Conv3d))}
    rows = {}
    for (n, pr), (_, pb), (_, pc) in zip(ref.named_parameters(), torch_side.named_parameters(), conv.named_parameters()):
        if pr.grad is None or pr.grad.norm() == 0 or pb.grad is None or pc.grad is None:
            continue
        rows[n] = (rel_l2(pb.grad, pr.grad), rel_l2(pc.grad, pr.grad))
    conv_rows = [rows[n] for n in swapped if n in rows]
    ratio = [g / max(t, 1e-6) for t, g in rows.values()]
    worst_torch = max((t for t, _ in conv_rows), default=0.0)
    worst_gconv = max((g for _, g in conv_rows), default=0.0)
    match = (
        all(map(lambda v: v == v and abs(v) != float("inf"), (lb.item(), lc.item())))
        and statistics.median(ratio) <= 1.5
        and worst_gconv <= max(3 * worst_torch, 0.05)
    )
    return {
        "loss_fp32": lr.item(), "loss_torch": lb.item(), "loss_gconv": lc.item(),
        "params_compared": len(rows),
        "err_ratio_median": statistics.median(ratio), "err_ratio_max": max(ratio),
        "swapped_conv_worst_err_torch": worst_torch, "swapped_conv_worst_err_gconv": worst_gconv,
        "match": match,
    }


def train_losses(model, x, target, seed, steps):
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return [step(model, opt, x, target, seed + i).item() for i in range(steps)]


def step_times(models, x, target, seed, iters, rounds=4):
    """Eager step times (ms) of each model, measured in ``rounds`` alternating rounds of
    ``iters`` steps (so that drift of the shared host hits every side alike): median and P90."""
    opts = [torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9) for m in models]
    for m, opt in zip(models, opts):
        for i in range(3):
            step(m, opt, x, target, seed + i)
    torch.cuda.synchronize()
    ts = [[] for _ in models]
    for _ in range(rounds):
        for m, opt, t in zip(models, opts, ts):
            for i in range(iters):
                t0 = time.perf_counter()
                step(m, opt, x, target, seed + i)
                torch.cuda.synchronize()
                t.append((time.perf_counter() - t0) * 1e3)
    out = []
    for t in ts:
        t.sort()
        out.append({"median_ms": statistics.median(t), "p90_ms": t[min(len(t) - 1, int(0.9 * len(t)))]})
    return out


def profile(model, x, target, seed, label, rows=15):
    """torch.profiler tables of three training steps: CUDA and CPU self time per op."""
    from torch.profiler import ProfilerActivity, profile as prof

    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for i in range(2):
        step(model, opt, x, target, seed + i)
    torch.cuda.synchronize()
    with prof(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        for i in range(3):
            step(model, opt, x, target, seed + i)
        torch.cuda.synchronize()
    ka = p.key_averages()
    print(f"== {label}: by CUDA self time (3 steps)")
    print(ka.table(sort_by="self_cuda_time_total", row_limit=rows))
    print(f"== {label}: by CPU self time (3 steps)")
    print(ka.table(sort_by="self_cpu_time_total", row_limit=rows), flush=True)


def one(name, args):
    row = {"model": name}
    seed = args.seed
    base = make(name, seed)
    x = torch.randn(args.batch, 3, args.size, args.size, device="cuda").to(memory_format=torch.channels_last)
    target = torch.randint(0, 1000, (args.batch,), device="cuda")
    conv = copy.deepcopy(base)
    report = gt.convert(conv, verbose=False)
    left = {}
    for _, r in report:
        if r != "swapped":
            left[r] = left.get(r, 0) + 1
    row["convolutions"] = len(report)
    row["swapped"] = sum(1 for _, r in report if r == "swapped")
    row["left"] = left
    t0 = time.perf_counter()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        compiled = gt.precompile(conv, x, verbose=False)
    row["precompile_s"] = time.perf_counter() - t0
    row["precompiled_kernels"] = len(compiled)
    row["no_kernel"] = [key for key, k in compiled if k.startswith("no kernel")]
    row.update(numerics(base, conv, x, target, seed + 1))
    row["train_torch"] = train_losses(copy.deepcopy(base), x, target, seed + 2, args.steps)
    row["train_gconv"] = train_losses(copy.deepcopy(conv), x, target, seed + 2, args.steps)
    if args.profile:
        profile(copy.deepcopy(base), x, target, seed + 4, f"{name} torch")
        profile(copy.deepcopy(conv), x, target, seed + 4, f"{name} gconv")
    if args.iters > 0:
        row["step_torch"], row["step_gconv"] = step_times(
            [copy.deepcopy(base), copy.deepcopy(conv)], x, target, seed + 3, args.iters)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", nargs="*", default=TORCHVISION + ["timm:" + m for m in TIMM])
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--iters", type=int, default=5, help="timed eager steps per side and round (0: no timing)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--profile", action="store_true", help="print torch.profiler tables of both sides")
    ap.add_argument("--out", default="new_models.jsonl")
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    rows = []
    with open(args.out, "w") as f:
        for name in args.models:
            t0 = time.perf_counter()
            try:
                row = one(name, args)
            except Exception as e:  # noqa: BLE001 - every model's failure is a result
                row = {"model": name, "error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()}
            row["seconds"] = time.perf_counter() - t0
            rows.append(row)
            f.write(json.dumps(row) + "\n")
            f.flush()
            torch.cuda.empty_cache()
            print(f"{name}: {'error ' + row['error'][:200] if 'error' in row else 'done'} ({row['seconds']:.0f} s)", flush=True)
    print()
    print(f"{'model':<28} {'swapped':>9} {'loss fp32':>9} {'torch':>8} {'gconv':>8} {'ratio':>6} {'match':>5} "
          f"{'train torch / gconv (last)':>27} {'step torch':>10} {'gconv':>8}")
    for r in rows:
        if "error" in r:
            print(f"{r['model']:<28} error: {r['error'][:150]}")
            continue
        st, sg = r.get("step_torch", {}), r.get("step_gconv", {})
        print(f"{r['model']:<28} {r['swapped']:>4}/{r['convolutions']:<4} {r['loss_fp32']:>9.4f} {r['loss_torch']:>8.4f} "
              f"{r['loss_gconv']:>8.4f} {r['err_ratio_median']:>6.2f} {str(r['match']):>5} "
              f"{r['train_torch'][-1]:>13.4f} / {r['train_gconv'][-1]:<11.4f} "
              f"{st.get('median_ms', float('nan')):>10.2f} {sg.get('median_ms', float('nan')):>8.2f}")
    bad = [r["model"] for r in rows if "error" in r or not r.get("match")]
    print(f"\n{len(rows) - len(bad)} of {len(rows)} models converted, trained and matched PyTorch; not: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
