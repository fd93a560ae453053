#!/usr/bin/env python3
"""The real client: torchvision models trained on gconv (run on a GPU machine with torch).

For each model (batch 64 at 224², bf16 autocast, channels_last, ``cudnn.benchmark=True`` for
PyTorch), from one initial state and one batch of data:

1. **Numerics**: one training step (no update) in float32 on PyTorch without TF32 (the
   reference), in bf16 on PyTorch, and in bf16 on the converted model (grouped and depthwise
   convolutions on gconv): the losses, and every parameter gradient's relative L2 error
   against the reference for PyTorch and for gconv (both carry bf16 rounding; gconv matches
   when its errors are of the size of PyTorch's own).
2. **Layers**: each convolution the conversion swaps, run alone forward + backward (input and
   weight gradients) on PyTorch and on gconv, on the shapes the model gives it, GPU time in
   CUDA graphs (no host time between kernels); summed per
   model, and the share of the whole step that PyTorch's convolutions of each kind take
   (depthwise, grouped, pointwise 1x1, other dense).
3. **Steps**: the whole training step (forward, backward, SGD update) on PyTorch, on the
   converted model, and on the model converted with its dense 1x1 layers too
   (``convert(model, dense="pointwise")``); the median and P90 of the per-step times, and how
   much of what Amdahl allows (the standalone layer saving) the step really saved.

With ``--graph-step`` each step is also captured as one CUDA graph and replayed (its GPU time
without the host; the eager step is host-bound on the H200 at this size). ``--tune`` runs
``gconv.torch.tune`` on the converted models.

Writes one JSON object per model to ``--out`` (JSON lines) and prints a table. Kernels are
compiled ahead of the timing with ``gconv.torch.precompile`` (its time is reported).
"""

import argparse
import copy
import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F
import torchvision

import gconv.torch as gt

PROFILE = False
TUNE = False
GRAPH_STEP = False
MODELS = ["mobilenet_v3_large", "efficientnet_b0", "convnext_tiny", "regnet_y_800mf", "resnext50_32x4d"]
CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def kind(m):
    return gt._kind(m)


def make(name, seed):
    torch.manual_seed(seed)
    m = getattr(torchvision.models, name)(weights=None)
    return m.cuda().to(memory_format=torch.channels_last).train()


def step(model, opt, x, target, seed, autocast=True):
    torch.manual_seed(seed)  # the same dropout / stochastic-depth draws on every side
    if opt is not None:
        opt.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
        out = model(x)
        if isinstance(out, (tuple, list)):  # models with auxiliary heads: the main output
            out = out[0]
        loss = F.cross_entropy(out, target)
    loss.backward()
    if opt is not None:
        opt.step()
    return loss


def events_ms(fn, iters, warmup):
    """Per-iteration GPU times (ms) of ``fn``, CUDA events around each call, after warm-up."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
    for a, b in ev:
        a.record()
        fn()
        b.record()
    torch.cuda.synchronize()
    return [a.elapsed_time(b) for a, b in ev]


def summary(ts):
    ts = sorted(ts)
    return {"median_ms": statistics.median(ts), "p90_ms": ts[min(len(ts) - 1, int(0.9 * len(ts)))], "min_ms": ts[0]}


def rel_l2(a, b):
    a, b = a.double(), b.double()
    return ((a - b).norm() / b.norm().clamp_min(1e-30)).item()


def numerics(name, x, target, seed):
    """One training step (no update) three ways from one state: PyTorch in float32 without
    TF32 (the reference), PyTorch in bf16 autocast, the converted model in bf16 autocast. Each
    gradient's relative L2 error against the reference, for PyTorch and for gconv: both carry
    bf16's rounding, so gconv matches when its error is of the size of PyTorch's own."""
    base = make(name, seed)
    conv = copy.deepcopy(base)
    ref = copy.deepcopy(base)
    gt.convert(conv, verbose=False)
    tf32 = (torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32)
    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    try:
        lr = step(ref, None, x, target, seed + 1, autocast=False)
    finally:
        torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = tf32
    lb = step(base, None, x, target, seed + 1)
    lc = step(conv, None, x, target, seed + 1)
    swapped = {n + ".weight" for n, m in conv.named_modules() if isinstance(m, (gt.Conv1d, gt.Conv2d, gt.Conv3d))}
    rows = {}
    for (n, pr), (_, pb), (_, pc) in zip(ref.named_parameters(), base.named_parameters(), conv.named_parameters()):
        if pr.grad is None or pr.grad.norm() == 0:
            continue
        rows[n] = (rel_l2(pb.grad, pr.grad), rel_l2(pc.grad, pr.grad))
    conv_rows = {n: rows[n] for n in sorted(swapped) if n in rows}
    ratio = [g / max(t, 1e-6) for t, g in rows.values()]
    return {
        "loss_fp32": lr.item(),
        "loss_torch": lb.item(),
        "loss_gconv": lc.item(),
        "params_compared": len(rows),
        "torch_err_median": statistics.median(t for t, _ in rows.values()),
        "gconv_err_median": statistics.median(g for _, g in rows.values()),
        "torch_err_max": max(t for t, _ in rows.values()),
        "gconv_err_max": max(g for _, g in rows.values()),
        "err_ratio_median": statistics.median(ratio),
        "err_ratio_max": max(ratio),
        "swapped_conv_err_torch_gconv": conv_rows,
        "swapped_conv_err_max": [max((t for t, _ in conv_rows.values()), default=0.0),
                                 max((g for _, g in conv_rows.values()), default=0.0)],
    }


def profile_step(model, opt, x, target, seed, rows=12):
    """torch.profiler tables (CUDA and CPU self time) of three steps."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            step(model, opt, x, target, seed)
        torch.cuda.synchronize()
    ka = prof.key_averages()
    return (ka.table(sort_by="self_cuda_time_total", row_limit=rows),
            ka.table(sort_by="self_cpu_time_total", row_limit=rows))


def conv_shapes(model, x):
    """(module name, module, input shape) of every convolution in one forward pass."""
    seen = []
    hooks = []
    for n, m in model.named_modules():
        if isinstance(m, torch.nn.modules.conv._ConvNd):
            hooks.append(m.register_forward_pre_hook(lambda mod, inp, n=n: seen.append((n, mod, tuple(inp[0].shape)))))
    with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
        model(x)
    for h in hooks:
        h.remove()
    return seen


def layer_times(shapes, kinds, iters, warmup):
    """Standalone forward + backward (both gradients) per layer of the given kinds: torch and
    gconv, GPU time in CUDA graphs (ms), summed by kind."""
    out = {}
    rows = []
    for n, m, xs in shapes:
        k = kind(m)
        rank = len(xs) - 2
        x = torch.randn(xs, device="cuda", dtype=torch.bfloat16)
        if rank == 2:
            x = x.to(memory_format=torch.channels_last)
        x.requires_grad_(True)
        w = m.weight.detach().to(torch.bfloat16).clone()
        if rank == 2:
            w = w.to(memory_format=torch.channels_last)
        w.requires_grad_(True)
        args = (m.stride, m.padding, m.dilation, m.groups)
        with torch.no_grad():
            y = CONV[rank](x, w, None, *args)
        dy = torch.randn_like(y)

        def run(f):
            def go():
                torch.autograd.grad(f(x, w, None, *args), (x, w), dy)
            return go

        t_torch = gt._graph_ms(run(CONV[rank]), iters, warmup)
        t_gconv = None
        if k in kinds:
            t_gconv = gt._graph_ms(run(getattr(gt, f"conv{rank}d")), iters, warmup)
        rows.append({"layer": n, "kind": k, "input": list(xs), "torch_ms": t_torch, "gconv_ms": t_gconv})
        o = out.setdefault(k, {"layers": 0, "torch_ms": 0.0, "gconv_ms": 0.0})
        o["layers"] += 1
        o["torch_ms"] += t_torch
        if t_gconv is not None:
            o["gconv_ms"] += t_gconv
    return out, rows


def train_time(name, x, target, seed, dense, iters, warmup):
    model = make(name, seed)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    pre = None
    if dense is not None:
        gt.convert(model, dense=dense, verbose=False)
        gt.untune()
        t0 = time.perf_counter()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            report = gt.precompile(model, x, verbose=False)
            if TUNE:
                tuned = gt.tune(model, x, verbose=False)
        torch.cuda.synchronize()
        pre = {"seconds": time.perf_counter() - t0, "kernels": len(report),
               "missing": [r for r in report if r[1].startswith("no kernel")]}
        if TUNE:
            pre["tuned"] = tuned
    ts = events_ms(lambda: step(model, opt, x, target, seed), iters, warmup)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(5):
        step(model, opt, x, target, seed)
    host_ms = (time.perf_counter() - t0) / 5 * 1e3  # wall per step, synchronised once
    torch.cuda.synchronize()
    wall_ms = (time.perf_counter() - t0) / 5 * 1e3
    out = summary(ts)
    out["host_enqueue_ms"] = host_ms
    out["wall_ms"] = wall_ms
    if PROFILE and dense is False:
        cuda_t, cpu_t = profile_step(model, opt, x, target, seed)
        print(f"--- {name} converted: CUDA self time\n{cuda_t}\n--- CPU self time\n{cpu_t}", flush=True)
    if GRAPH_STEP:
        out["graph"] = graph_step_ms(model, opt, x, target, iters)
    return out, pre


def graph_step_ms(model, opt, x, target, iters):
    """The whole training step (forward, backward, SGD update) captured once as a CUDA graph
    and replayed: its GPU time without the host (PyTorch's whole-network capture recipe; the
    autocast cache off inside the capture; dropout draws are replayed from the graph's
    generator state, so numerics are not compared here)."""
    def body():
        with torch.autocast("cuda", dtype=torch.bfloat16, cache_enabled=False):
            loss = F.cross_entropy(model(x), target)
        loss.backward()
        opt.step()

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            body()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(g):
        body()
    return summary(events_ms(g.replay, iters, 3))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="*", default=MODELS)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--layer-iters", type=int, default=10)
    ap.add_argument("--no-pointwise", action="store_true", help="skip the dense-1x1 variant")
    ap.add_argument("--out", default="real_client.jsonl")
    ap.add_argument("--profile", action="store_true", help="print torch.profiler tables of the converted step")
    ap.add_argument("--tune", action="store_true",
                    help="gconv.torch.tune the converted models (each layer on the faster of gconv and PyTorch)")
    ap.add_argument("--graph-step", action="store_true",
                    help="also time each step captured as one CUDA graph (GPU time without the host)")
    a = ap.parse_args()
    global PROFILE, TUNE, GRAPH_STEP
    PROFILE, TUNE, GRAPH_STEP = a.profile, a.tune, a.graph_step
    torch.backends.cudnn.benchmark = True
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}, {torch.cuda.get_device_name(0)}", flush=True)
    with open(a.out, "a") as out:
        for name in a.models:
            seed = 0
            g = torch.Generator(device="cuda").manual_seed(1)
            x = torch.randn(a.batch, 3, a.size, a.size, device="cuda", generator=g).to(memory_format=torch.channels_last)
            target = torch.randint(0, 1000, (a.batch,), device="cuda", generator=g)
            rec = {"model": name, "batch": a.batch, "size": a.size}
            t0 = time.perf_counter()
            # precompile first (the numerics pass then runs on compiled kernels)
            base_t, _ = train_time(name, x, target, seed, None, a.iters, a.warmup)
            conv_t, pre = train_time(name, x, target, seed, False, a.iters, a.warmup)
            rec["step_torch"] = base_t
            rec["step_gconv"] = conv_t
            rec["precompile"] = pre
            rec["numerics"] = numerics(name, x, target, seed)
            shapes = conv_shapes(make(name, seed), x)
            kinds = {"depthwise", "grouped"} if a.no_pointwise else {"depthwise", "grouped", "pointwise"}
            layers, rows = layer_times(shapes, kinds, a.layer_iters, 3)
            rec["layers"] = layers
            rec["layer_rows"] = rows
            if not a.no_pointwise:
                pw_t, pw_pre = train_time(name, x, target, seed, "pointwise", a.iters, a.warmup)
                rec["step_gconv_pointwise"] = pw_t
                rec["precompile_pointwise"] = pw_pre
            if a.graph_step:
                gb, gc = base_t["graph"]["median_ms"], conv_t["graph"]["median_ms"]
                print(f"{name}: step as a CUDA graph: torch {gb:.2f} ms, gconv {gc:.2f} ms ({gb / gc:.3f}x)", flush=True)
            T = base_t["median_ms"]
            conv = [k for k in ("depthwise", "grouped") if k in layers]
            s_torch = sum(layers[k]["torch_ms"] for k in conv)
            s_gconv = sum(layers[k]["gconv_ms"] for k in conv)
            rec["shares"] = {k: v["torch_ms"] / T for k, v in layers.items()}
            rec["converted_speedup"] = s_torch / s_gconv if s_gconv else None
            allowed = s_torch - s_gconv
            rec["amdahl_fraction"] = (T - conv_t["median_ms"]) / allowed if allowed > 0 else None
            if a.graph_step:
                # the same fraction on the graph-replayed steps (no host time in either)
                rec["amdahl_fraction_graph"] = (gb - gc) / allowed if allowed > 0 else None
                print(f"{name}: graph step saved {gb - gc:.3f} ms of the {allowed:.3f} ms the converted layers allow"
                      + (f" ({rec['amdahl_fraction_graph']:.2f})" if allowed > 0 else ""), flush=True)
            rec["seconds"] = time.perf_counter() - t0
            out.write(json.dumps(rec) + "\n")
            out.flush()
            n = rec["numerics"]
            pw = rec.get("step_gconv_pointwise", {}).get("median_ms")
            print(
                f"{name}: step torch {T:.2f} ms, gconv {conv_t['median_ms']:.2f} ms ({T / conv_t['median_ms']:.3f}x)"
                + (f", +1x1 {pw:.2f} ms ({T / pw:.3f}x)" if pw else "")
                + f" [host enqueue per step: torch {base_t['host_enqueue_ms']:.1f} ms, gconv {conv_t['host_enqueue_ms']:.1f} ms]"
                + f"; converted layers (GPU) torch {s_torch:.3f} ms vs gconv {s_gconv:.3f} ms "
                + (f"({rec['converted_speedup']:.2f}x)" if rec["converted_speedup"] else "")
                + "; shares " + ", ".join(f"{k} {v:.1%}" for k, v in rec["shares"].items())
                + (f"; Amdahl fraction {rec['amdahl_fraction']:.2f}" if rec["amdahl_fraction"] is not None else "")
                + f"; loss fp32 {n['loss_fp32']:.4f}, torch bf16 {n['loss_torch']:.4f}, gconv bf16 {n['loss_gconv']:.4f}"
                + f"; grad rel-L2 vs fp32 median torch {n['torch_err_median']:.3g} gconv {n['gconv_err_median']:.3g},"
                f" max torch {n['torch_err_max']:.3g} gconv {n['gconv_err_max']:.3g};"
                f" swapped convs max torch {n['swapped_conv_err_max'][0]:.3g} gconv {n['swapped_conv_err_max'][1]:.3g}"
                f"; precompile {pre['seconds']:.1f} s for {pre['kernels']} kernels; {rec['seconds']:.0f} s",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
