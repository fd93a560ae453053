"""gconv for PyTorch: ``conv1d``/``conv2d``/``conv3d`` on CUDA tensors, with autograd.

Status: written and built, **not yet run on a GPU** — no device was lent when it was finished;
``python/tests_gpu`` holds the tests that check it against ``torch.nn.functional`` (forward
and both gradients, every regime, rank and dtype; zero copy; the stream contract; convert).

Forward runs gconv's forward kernel; backward runs its backward-data kernel for the input
gradient and its backward-weight kernel for the weight gradient, each only when that gradient
is needed. Kernels are chosen by ``auto`` (the shipped decisions, the learned model, the rule),
compiled once through the persistent compile cache, and launched on PyTorch's current CUDA
stream on the tensors' own memory:

- channels_last inputs (``torch.channels_last``, ``channels_last_3d``, or for 1D a (N, C, W)
  tensor whose channels are innermost) are used as they are, without a copy; other layouts
  are converted once per call (a warning says so, once per process);
- the output is allocated channels_last by PyTorch's allocator, and so is the workspace of
  kernels that need one;
- nothing synchronises the device.

Only zero padding of ints (no ``padding="same"``, no other ``padding_mode``) is supported;
``Conv1d``/``Conv2d``/``Conv3d`` are drop-ins for ``torch.nn.ConvNd`` with the same parameters
and state_dict keys, and :func:`convert` swaps a model's convolutions in place.
"""

from __future__ import annotations

import warnings
from typing import Optional, Sequence, Union

import torch

from . import Problem, problem as _make_problem
from ._gconv import DeviceRunner

__all__ = ["conv1d", "conv2d", "conv3d", "Conv1d", "Conv2d", "Conv3d", "convert", "runner"]

_DTYPES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}
_RUNNERS: dict = {}
_WARNED: set = set()


def runner(p: Problem, device: int) -> DeviceRunner:
    """The process's compiled runner of ``p`` on CUDA device ``device`` (made on first use)."""
    key = (p.key, device)
    r = _RUNNERS.get(key)
    if r is None:
        r = DeviceRunner(p, "auto", device)
        _RUNNERS[key] = r
    return r


def _channels_last(t: torch.Tensor, what: str) -> torch.Tensor:
    """``t`` with its channel dimension (dim 1) innermost in memory: as it is when it already
    is (no copy), else converted."""
    order = [0] + list(range(2, t.dim())) + [1]
    if t.permute(*order).is_contiguous():
        return t
    if what not in _WARNED:
        _WARNED.add(what)
        warnings.warn(
            f"gconv.torch: {what} is not channels_last; it is converted on every call "
            "(use .to(memory_format=torch.channels_last) to run without a copy)",
            stacklevel=4,
        )
    inverse = [0, t.dim() - 1] + list(range(1, t.dim() - 1))
    return t.permute(*order).contiguous().permute(*inverse)


def _empty_channels_last(shape: Sequence[int], like: torch.Tensor) -> torch.Tensor:
    order = [0] + list(range(2, len(shape))) + [1]
    stored = torch.empty([shape[i] for i in order], dtype=like.dtype, device=like.device)
    inverse = [0, len(shape) - 1] + list(range(1, len(shape) - 1))
    return stored.permute(*inverse)


def _launch(p: Problem, a: torch.Tensor, b: torch.Tensor, out_shape: Sequence[int]) -> torch.Tensor:
    device = a.device.index if a.device.index is not None else torch.cuda.current_device()
    r = runner(p, device)
    out = _empty_channels_last(out_shape, a)
    ws = r.workspace_bytes
    workspace = torch.empty(ws, dtype=torch.uint8, device=a.device) if ws else None
    stream = torch.cuda.current_stream(a.device).cuda_stream
    r.launch(
        a.data_ptr(),
        b.data_ptr(),
        out.data_ptr(),
        workspace.data_ptr() if workspace is not None else 0,
        stream,
    )
    return out


def _problem(direction: str, x_shape, w_shape, dtype: str, stride, padding, dilation, groups) -> Problem:
    n, c = x_shape[0], x_shape[1]
    k = w_shape[0]
    return _make_problem(
        direction, dtype, n, groups, c, k, list(x_shape[2:]), list(w_shape[2:]),
        list(stride), list(padding), list(dilation),
    )


class _Conv(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, stride, padding, dilation, groups):
        dtype = _DTYPES[x.dtype]
        x = _channels_last(x, "the input")
        w = _channels_last(w, "the weight")
        p = _problem("fwd", x.shape, w.shape, dtype, stride, padding, dilation, groups)
        y = _launch(p, x, w, [x.shape[0], w.shape[0]] + p.shape("y")[1:-1])
        ctx.save_for_backward(x, w)
        ctx.conv = (stride, padding, dilation, groups, p)
        return y

    @staticmethod
    def backward(ctx, dy):
        x, w = ctx.saved_tensors
        stride, padding, dilation, groups, p = ctx.conv
        dy = _channels_last(dy, "the output gradient")
        dx = dw = None
        if ctx.needs_input_grad[0]:
            dx = _launch(p.with_direction("dgrad"), dy, w, list(x.shape))
        if ctx.needs_input_grad[1]:
            dw = _launch(p.with_direction("wgrad"), x, dy, list(w.shape))
        return dx, dw, None, None, None, None


def _check(x: torch.Tensor, w: torch.Tensor, rank: int):
    if not isinstance(x, torch.Tensor) or not isinstance(w, torch.Tensor):
        raise TypeError("gconv.torch: the input and the weight must be torch tensors")
    if x.dim() != rank + 2 or w.dim() != rank + 2:
        raise ValueError(
            f"gconv.torch: conv{rank}d takes a {rank + 2}-D input and weight, got {tuple(x.shape)} and {tuple(w.shape)}"
        )
    if not x.is_cuda or x.device != w.device:
        raise ValueError(
            f"gconv.torch: the input and the weight must be CUDA tensors on one device (got {x.device} and {w.device}); "
            "NumPy arrays run on the CPU through gconv.Runner"
        )
    if x.dtype not in _DTYPES or w.dtype not in _DTYPES:
        raise ValueError(f"gconv.torch: dtypes {x.dtype} and {w.dtype}; gconv takes float32, float16 or bfloat16")


def _tuple(v, rank: int, name: str):
    if isinstance(v, str):
        raise ValueError(f"gconv.torch: {name}={v!r} is not supported; give ints")
    if isinstance(v, int):
        return (v,) * rank
    v = tuple(int(i) for i in v)
    if len(v) != rank:
        raise ValueError(f"gconv.torch: {name} {v} for a rank-{rank} convolution")
    return v


def _conv(rank, x, w, bias, stride, padding, dilation, groups):
    _check(x, w, rank)
    if torch.is_autocast_enabled("cuda"):
        # What autocast does for torch's convolutions: both operands in its dtype.
        target = torch.get_autocast_dtype("cuda")
        x, w = x.to(target), w.to(target)
    elif w.dtype != x.dtype:
        raise ValueError(
            f"gconv.torch: the input is {x.dtype} and the weight {w.dtype}; give both in one dtype (or use autocast)"
        )
    y = _Conv.apply(
        x, w, _tuple(stride, rank, "stride"), _tuple(padding, rank, "padding"),
        _tuple(dilation, rank, "dilation"), int(groups),
    )
    if bias is not None:
        y = y + bias.to(y.dtype).view(1, -1, *([1] * rank))
    return y


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``torch.nn.functional.conv1d`` on gconv's kernels (CUDA tensors)."""
    return _conv(1, x, weight, bias, stride, padding, dilation, groups)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``torch.nn.functional.conv2d`` on gconv's kernels (CUDA tensors)."""
    return _conv(2, x, weight, bias, stride, padding, dilation, groups)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``torch.nn.functional.conv3d`` on gconv's kernels (CUDA tensors)."""
    return _conv(3, x, weight, bias, stride, padding, dilation, groups)


def _supported(m: torch.nn.modules.conv._ConvNd) -> Optional[str]:
    """Why gconv cannot run module ``m`` (None: it can)."""
    if m.padding_mode != "zeros":
        return f"padding_mode={m.padding_mode!r}"
    if isinstance(m.padding, str):
        return f"padding={m.padding!r}"
    if getattr(m, "transposed", False):
        return "a transposed convolution"
    return None


class _GconvConv:
    """Mixin: the forward of a ``torch.nn.ConvNd`` on gconv (CUDA), torch's own elsewhere."""

    _rank = 2

    def forward(self, x):  # noqa: D401
        if not x.is_cuda or _supported(self) is not None:
            return super().forward(x)
        return _conv(self._rank, x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv1d(_GconvConv, torch.nn.Conv1d):
    """``torch.nn.Conv1d`` whose forward and backward run on gconv (same parameters and keys)."""

    _rank = 1


class Conv2d(_GconvConv, torch.nn.Conv2d):
    """``torch.nn.Conv2d`` whose forward and backward run on gconv (same parameters and keys)."""

    _rank = 2


class Conv3d(_GconvConv, torch.nn.Conv3d):
    """``torch.nn.Conv3d`` whose forward and backward run on gconv (same parameters and keys)."""

    _rank = 3


_SWAP = {torch.nn.Conv1d: Conv1d, torch.nn.Conv2d: Conv2d, torch.nn.Conv3d: Conv3d}


def convert(model: torch.nn.Module, dense: bool = False, verbose: bool = True) -> list:
    """Swaps ``model``'s convolutions for the gconv modules in place, sharing their parameters:
    the grouped and depthwise ones by default, the dense ones too with ``dense=True``. Returns
    (and with ``verbose`` prints) what it did with each: ``(name, "swapped")`` or
    ``(name, why it was left)``."""
    report = []
    for name, m in list(model.named_modules()):
        for child_name, child in list(m.named_children()):
            cls = _SWAP.get(type(child))
            if cls is None:
                continue
            full = f"{name}.{child_name}" if name else child_name
            why = _supported(child)
            if why is None and child.groups == 1 and not dense:
                why = "dense (groups=1; convert(model, dense=True) swaps those too)"
            if why is not None:
                report.append((full, f"left: {why}"))
                continue
            child.__class__ = cls  # the same module object: parameters, hooks and keys stay
            report.append((full, "swapped"))
    if verbose:
        swapped = sum(1 for _, r in report if r == "swapped")
        print(f"gconv.torch.convert: {swapped} of {len(report)} convolutions swapped")
        for full, r in report:
            if r != "swapped":
                print(f"  {full}: {r}")
    return report
