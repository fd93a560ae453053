"""gconv for PyTorch: ``conv1d``/``conv2d``/``conv3d`` on CUDA tensors, with autograd.

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

Under ``torch.compile`` the three directions are the custom ops ``gconv::conv_fwd``,
``gconv::conv_dgrad`` and ``gconv::conv_wgrad`` (with fake implementations and the forward's
autograd registered), so a compiled graph holds each convolution as one opaque op instead of
breaking; eager calls skip the op dispatcher (less host time per call). :func:`precompile`
compiles every kernel a model needs for an input shape in parallel before the first step;
:func:`tune` keeps each convolution on the faster of gconv and PyTorch (measured on the
device, forward and both gradients in CUDA graphs).

Only zero padding is supported (``padding_mode="zeros"``): ints, ``"valid"``, and ``"same"``
where it is symmetric (every dilation·(kernel − 1) even; PyTorch pads an odd total one more on
the far side, which gconv's symmetric padding cannot express). ``Conv1d``/``Conv2d``/``Conv3d``
are drop-ins for ``torch.nn.ConvNd`` with the same parameters and state_dict keys, and
:func:`convert` swaps a model's convolutions in place (and names the ones it leaves, such as
subclasses of ``torch.nn.ConvNd`` with a forward of their own).
"""

from __future__ import annotations

import operator
import warnings
from typing import List, Optional, Sequence, Union

try:
    import torch
except ImportError as e:  # the package itself needs only NumPy
    raise ImportError(
        "gconv.torch needs PyTorch, which is not installed here (pip install torch); the rest "
        "of gconv (Problem, Runner on NumPy arrays) works without it"
    ) from e

from . import Problem, problem as _make_problem
from ._gconv import DeviceRunner
from ._gconv import precompile as _precompile

__all__ = [
    "conv1d", "conv2d", "conv3d", "Conv1d", "Conv2d", "Conv3d", "convert", "runner", "precompile",
    "tune", "untune",
]

_DTYPES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}
_RUNNERS: dict = {}
_PLANS: dict = {}
_WARNED: set = set()
_RECORD: Optional[list] = None
_TUNED: dict = {}  # tune(): (x shape, w shape, dtype, stride, padding, dilation, groups) -> gconv is faster


def _warn_once(key: str, message: str) -> None:
    """Warn with ``message`` the first time ``key`` is met in this process; ``stacklevel``
    points at the user's line (one frame deeper than ``_channels_last``'s own callers)."""
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(message, stacklevel=5)


def runner(p: Problem, device: int) -> DeviceRunner:
    """The process's compiled runner of ``p`` on CUDA device ``device`` (made on first use)."""
    key = (p.key, device)
    r = _RUNNERS.get(key)
    if r is None:
        r = DeviceRunner(p, "auto", device)
        _RUNNERS[key] = r
    return r


_CL = {4: torch.channels_last, 5: torch.channels_last_3d}


def _is_channels_last(t: torch.Tensor) -> bool:
    fmt = _CL.get(t.dim())
    if fmt is not None:
        return t.is_contiguous(memory_format=fmt)
    # (N, C, W): channels innermost.
    return t.permute(0, 2, 1).is_contiguous()


def _channels_last(t: torch.Tensor, what: str) -> torch.Tensor:
    """``t`` with its channel dimension (dim 1) innermost in memory and its data 16-byte
    aligned (the kernels move 16-byte vectors): as it is when it already is (no copy), else
    copied."""
    if _is_channels_last(t):
        if t.data_ptr() % 16 == 0:
            return t
        _warn_once(
            what + " (alignment)",
            f"gconv.torch: {what} starts {t.data_ptr() % 16} bytes past a 16-byte boundary "
            "(a view at an element offset); it is copied on every call",
        )
        return t.clone()  # a fresh allocation, the same strides (channels innermost)
    _warn_once(
        what,
        f"gconv.torch: {what} is not channels_last; it is converted on every call "
        "(use .to(memory_format=torch.channels_last) to run without a copy)",
    )
    return _as_channels_last(t)


def _as_channels_last(t: torch.Tensor) -> torch.Tensor:
    """A channels-innermost copy of ``t`` (same shape)."""
    order = [0] + list(range(2, t.dim())) + [1]
    inverse = [0, t.dim() - 1] + list(range(1, t.dim() - 1))
    return t.permute(*order).contiguous().permute(*inverse)


def _empty_channels_last(shape: Sequence[int], like: torch.Tensor) -> torch.Tensor:
    order = [0] + list(range(2, len(shape))) + [1]
    stored = torch.empty([shape[i] for i in order], dtype=like.dtype, device=like.device)
    inverse = [0, len(shape) - 1] + list(range(1, len(shape) - 1))
    return stored.permute(*inverse)


def _out_spatial(size, filt, stride, padding, dilation):
    return [
        (i + 2 * p - d * (f - 1) - 1) // s + 1
        for i, f, s, p, d in zip(size, filt, stride, padding, dilation)
    ]


def _problem(direction: str, x_shape, w_shape, dtype: str, stride, padding, dilation, groups) -> Problem:
    n, c = x_shape[0], x_shape[1]
    k = w_shape[0]
    if groups >= 1 and w_shape[1] * groups != c:
        # The kernels take C from the input and read K * taps * C/G weights: a weight of
        # another channel count would be read past its end or in the wrong layout.
        raise ValueError(
            f"gconv.torch: the weight {tuple(w_shape)} has {w_shape[1]} input channels per group; "
            f"an input of {c} channels in {groups} groups needs {c / groups:g}"
        )
    return _make_problem(
        direction, dtype, n, groups, c, k, list(x_shape[2:]), list(w_shape[2:]),
        list(stride), list(padding), list(dilation),
    )


def _plan(direction, x_shape, w_shape, dtype, stride, padding, dilation, groups, device):
    """(runner, output shape, workspace bytes, the output's torch memory format or None for
    1D) of one convolution, cached by its fields so that a repeated call builds no problem
    and looks up one dict entry."""
    key = (direction, x_shape, w_shape, dtype, stride, padding, dilation, groups, device)
    plan = _PLANS.get(key)
    if plan is None:
        p = _problem(direction, x_shape, w_shape, _DTYPES[dtype], stride, padding, dilation, groups)
        r = runner(p, device)
        if direction == "fwd":
            out = [x_shape[0], w_shape[0]] + _out_spatial(x_shape[2:], w_shape[2:], stride, padding, dilation)
        elif direction == "dgrad":
            out = list(x_shape)
        else:
            out = list(w_shape)
        plan = (r, out, r.workspace_bytes, _CL.get(len(out)))
        _PLANS[key] = plan
    return plan


try:  # the current stream's cudaStream_t without building a Stream object (what inductor uses)
    _raw_stream = torch._C._cuda_getCurrentRawStream
except AttributeError:  # pragma: no cover - older torch
    def _raw_stream(device):
        return torch.cuda.current_stream(device).cuda_stream


def _empty_output(shape, fmt, like: torch.Tensor) -> torch.Tensor:
    """An uninitialised channels_last output of ``shape`` in ``like``'s dtype and device;
    ``fmt`` the plan's memory format (None for 1D)."""
    if fmt is not None:
        return torch.empty(shape, dtype=like.dtype, device=like.device, memory_format=fmt)
    return _empty_channels_last(shape, like)


def _launch(direction, a, b, x_shape, w_shape, stride, padding, dilation, groups):
    """Runs one direction on channels_last ``a``, ``b`` (the contract's order) and returns the
    channels_last output, on the current stream, without synchronising."""
    device = a.get_device()
    r, out_shape, ws, fmt = _plan(direction, x_shape, w_shape, a.dtype, stride, padding, dilation, groups, device)
    out = _empty_output(out_shape, fmt, a)
    if ws:
        workspace = torch.empty(ws, dtype=torch.uint8, device=a.device)
        r.launch(a.data_ptr(), b.data_ptr(), out.data_ptr(), workspace.data_ptr(), _raw_stream(device))
    else:
        r.launch(a.data_ptr(), b.data_ptr(), out.data_ptr(), 0, _raw_stream(device))
    return out


def _fwd(x, w, stride, padding, dilation, groups):
    x = _channels_last(x, "the input")
    w = _channels_last(w, "the weight")
    return _launch("fwd", x, w, x.shape, w.shape, stride, padding, dilation, groups)


def _dgrad(dy, w, x_shape, stride, padding, dilation, groups):
    dy = _channels_last(dy, "the output gradient")
    w = _channels_last(w, "the weight")
    return _launch("dgrad", dy, w, tuple(x_shape), w.shape, stride, padding, dilation, groups)


def _wgrad(x, dy, w_shape, stride, padding, dilation, groups):
    x = _channels_last(x, "the input")
    dy = _channels_last(dy, "the output gradient")
    return _launch("wgrad", x, dy, x.shape, tuple(w_shape), stride, padding, dilation, groups)


class _Conv(torch.autograd.Function):
    """The eager path: one autograd node per convolution, no op dispatcher. The node also owns
    what would otherwise be nodes of their own around it (each costs host time in a step):
    the casts to the compute dtype (autocast's, for ``x`` and ``w``: the engine casts the
    gradients back to the inputs' dtypes) and the bias (added in place to the output in its
    own dtype, its gradient summed in float32)."""

    @staticmethod
    def forward(ctx, x, w, bias, conv, dtype):
        return _forward(ctx, x, w, bias, conv, dtype)

    @staticmethod
    def backward(ctx, dy):
        if torch.is_grad_enabled():
            # create_graph=True: the gradients must refuse a second derivative (an error, not
            # zeros). A plain backward runs with grad mode off and skips the wrapper's cost.
            return _backward_once(ctx, dy)
        return _backward(ctx, dy)


def _forward(ctx, x, w, bias, conv, dtype):
    """:class:`_Conv`'s forward; with ``ctx`` None (nothing needs a gradient) it runs without an
    autograd node and saves nothing."""
    if x.dtype != dtype:
        x = x.to(dtype)
    if w.dtype != dtype:
        w = w.to(dtype)
    x = _channels_last(x, "the input")
    w = _channels_last(w, "the weight")
    stride, padding, dilation, groups = conv
    y = _launch("fwd", x, w, x.shape, w.shape, stride, padding, dilation, groups)
    if bias is not None:
        y.add_(bias.reshape(_BIAS_SHAPE[y.dim()]))
    if ctx is not None:
        ctx.save_for_backward(x, w)
        ctx.conv = conv
    return y


def _backward(ctx, dy):
    """:class:`_Conv`'s backward: backward data and backward weight (each only when needed),
    the bias gradient summed in float32."""
    x, w = ctx.saved_tensors
    stride, padding, dilation, groups = ctx.conv
    if dy.dtype != x.dtype:
        dy = dy.to(x.dtype)
    dx = dw = db = None
    needs = ctx.needs_input_grad
    if needs[0]:
        dx = _dgrad(dy, w, x.shape, stride, padding, dilation, groups)
    if needs[1]:
        dw = _wgrad(x, dy, w.shape, stride, padding, dilation, groups)
    if needs[2]:
        db = dy.sum(_BIAS_SUM_DIMS[dy.dim()], dtype=torch.float32)
    return dx, dw, db, None, None


_backward_once = torch.autograd.function.once_differentiable(_backward)

_BIAS_SHAPE = {3: (1, -1, 1), 4: (1, -1, 1, 1), 5: (1, -1, 1, 1, 1)}
_BIAS_SUM_DIMS = {3: (0, 2), 4: (0, 2, 3), 5: (0, 2, 3, 4)}


# The custom ops (what torch.compile sees): the same three launches, with fake (meta)
# implementations that give the output's shape and channels_last strides.
@torch.library.custom_op("gconv::conv_fwd", mutates_args=())
def _op_fwd(x: torch.Tensor, w: torch.Tensor, stride: List[int], padding: List[int],
            dilation: List[int], groups: int) -> torch.Tensor:
    return _fwd(x, w, tuple(stride), tuple(padding), tuple(dilation), groups)


@_op_fwd.register_fake
def _(x, w, stride, padding, dilation, groups):
    shape = [x.shape[0], w.shape[0]] + _out_spatial(x.shape[2:], w.shape[2:], stride, padding, dilation)
    return _empty_channels_last(shape, x)


@torch.library.custom_op("gconv::conv_dgrad", mutates_args=())
def _op_dgrad(dy: torch.Tensor, w: torch.Tensor, x_shape: List[int], stride: List[int],
              padding: List[int], dilation: List[int], groups: int) -> torch.Tensor:
    return _dgrad(dy, w, x_shape, tuple(stride), tuple(padding), tuple(dilation), groups)


@_op_dgrad.register_fake
def _(dy, w, x_shape, stride, padding, dilation, groups):
    return _empty_channels_last(list(x_shape), dy)


@torch.library.custom_op("gconv::conv_wgrad", mutates_args=())
def _op_wgrad(x: torch.Tensor, dy: torch.Tensor, w_shape: List[int], stride: List[int],
              padding: List[int], dilation: List[int], groups: int) -> torch.Tensor:
    return _wgrad(x, dy, w_shape, tuple(stride), tuple(padding), tuple(dilation), groups)


@_op_wgrad.register_fake
def _(x, dy, w_shape, stride, padding, dilation, groups):
    return _empty_channels_last(list(w_shape), x)


def _op_setup(ctx, inputs, output):
    x, w, stride, padding, dilation, groups = inputs
    ctx.save_for_backward(x, w)
    ctx.conv = (stride, padding, dilation, groups)


def _op_backward(ctx, dy):
    x, w = ctx.saved_tensors
    stride, padding, dilation, groups = ctx.conv
    dx = dw = None
    if ctx.needs_input_grad[0]:
        dx = torch.ops.gconv.conv_dgrad(dy, w, list(x.shape), stride, padding, dilation, groups)
    if ctx.needs_input_grad[1]:
        dw = torch.ops.gconv.conv_wgrad(x, dy, list(w.shape), stride, padding, dilation, groups)
    return dx, dw, None, None, None, None


_op_fwd.register_autograd(_op_backward, setup_context=_op_setup)


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


def _string_padding(padding: str, kernel: Sequence[int], stride, dilation, rank: int):
    """``padding="valid"`` or ``"same"`` as ints, or a ValueError saying why gconv cannot."""
    if padding == "valid":
        return (0,) * rank
    if padding != "same":
        raise ValueError(f"gconv.torch: padding={padding!r}; give ints, 'valid' or 'same'")
    stride = _tuple(stride, rank, "stride")
    dilation = _tuple(dilation, rank, "dilation")
    if any(s != 1 for s in stride):
        raise ValueError(f"gconv.torch: padding='same' needs stride 1 (stride {stride})")
    total = [d * (k - 1) for d, k in zip(dilation, kernel)]
    if any(t % 2 for t in total):
        raise ValueError(
            f"gconv.torch: padding='same' with kernel {tuple(kernel)} and dilation {dilation} pads "
            "asymmetrically (PyTorch puts the odd element on the far side); gconv pads symmetrically"
        )
    return tuple(t // 2 for t in total)


def _tuple(v, rank: int, name: str):
    if type(v) is tuple and len(v) == rank and all(type(i) is int for i in v):
        return v  # what modules hold
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
        dtype = torch.get_autocast_dtype("cuda")
    elif w.dtype != x.dtype:
        raise ValueError(
            f"gconv.torch: the input is {x.dtype} and the weight {w.dtype}; give both in one dtype (or use autocast)"
        )
    else:
        dtype = x.dtype
    if isinstance(padding, str):
        padding = _string_padding(padding, w.shape[2:], stride, dilation, rank)
    stride = _tuple(stride, rank, "stride")
    padding = _tuple(padding, rank, "padding")
    dilation = _tuple(dilation, rank, "dilation")
    if isinstance(groups, bool) or not hasattr(groups, "__index__"):
        raise TypeError(f"gconv.torch: groups={groups!r}; give an int")
    groups = operator.index(groups)
    if bias is not None and (not isinstance(bias, torch.Tensor) or bias.dim() != 1 or bias.shape[0] != w.shape[0]):
        shape = tuple(bias.shape) if isinstance(bias, torch.Tensor) else type(bias).__name__
        raise ValueError(
            f"gconv.torch: the bias is {shape}; a weight of {w.shape[0]} output channels takes a bias of ({w.shape[0]},)"
        )
    if _RECORD is not None:
        return _record(rank, x.to(dtype), w.to(dtype), bias, stride, padding, dilation, groups)
    if _TUNED and _TUNED.get((x.shape, w.shape, dtype, stride, padding, dilation, groups)) is False:
        return _TORCH_CONV[rank](x, w, bias, stride, padding, dilation, groups)  # tune() measured it faster
    if torch.compiler.is_compiling():
        y = torch.ops.gconv.conv_fwd(x.to(dtype), w.to(dtype), list(stride), list(padding), list(dilation), groups)
        if bias is not None:
            y = y + bias.to(y.dtype).reshape(_BIAS_SHAPE[y.dim()])
        return y
    conv = (stride, padding, dilation, groups)
    if torch.is_grad_enabled() and (
        x.requires_grad or w.requires_grad or (bias is not None and bias.requires_grad)
    ):
        return _Conv.apply(x, w, bias, conv, dtype)
    return _forward(None, x, w, bias, conv, dtype)  # nothing needs a gradient: no autograd node


_TORCH_CONV = {1: torch.nn.functional.conv1d, 2: torch.nn.functional.conv2d, 3: torch.nn.functional.conv3d}


def _record(rank, x, w, bias, stride, padding, dilation, groups):
    """In :func:`precompile`'s pass: notes the convolution's problems and runs torch's own
    convolution, so that the pass needs no gconv kernel."""
    device = x.get_device()
    _RECORD.append((x.shape, w.shape, x.dtype, stride, padding, dilation, groups, device))
    return _TORCH_CONV[rank](x, w, bias, stride, padding, dilation, groups)


def _record_pass(model, inputs, kwargs) -> list:
    """The convolutions gconv would run in one forward pass of ``model`` (run without
    gradients on torch's convolutions): ``(x shape, w shape, dtype, stride, padding,
    dilation, groups, device)`` each, in call order."""
    global _RECORD
    seen: list = []
    _RECORD = seen
    try:
        with torch.no_grad():
            model(*inputs, **kwargs)
    finally:
        _RECORD = None
    return seen


def precompile(model: torch.nn.Module, *inputs, backward: bool = True, verbose: bool = True, **kwargs) -> list:
    """Compiles, ahead of the first step and in parallel, every kernel that ``model`` (already
    :func:`convert`-ed) needs for ``inputs``: runs one forward pass without gradients (on
    torch's convolutions; call it inside the same ``torch.autocast`` context as the training
    step so that the dtypes match), notes each gconv convolution, then resolves, compiles
    and loads the forward kernels and, with ``backward``, the backward-data and
    backward-weight kernels of each. Returns ``(problem key, kernel or why none)`` per
    problem; a problem without a kernel raises only when it is run."""
    return _precompile_seen(_record_pass(model, inputs, kwargs), backward, verbose)


def _precompile_seen(seen: list, backward: bool, verbose: bool) -> list:
    """:func:`precompile` of the convolutions a record pass noted."""
    todo, keys = [], set()
    for x_shape, w_shape, dtype, stride, padding, dilation, groups, device in seen:
        for d in ("fwd", "dgrad", "wgrad") if backward else ("fwd",):
            p = _problem(d, tuple(x_shape), tuple(w_shape), _DTYPES[dtype], stride, padding, dilation, groups)
            if (p.key, device) in keys or (p.key, device) in _RUNNERS:
                continue
            keys.add((p.key, device))
            todo.append((p, device))
    report = []
    for device in sorted({d for _, d in todo}):
        ps = [p for p, d in todo if d == device]
        for p, (r, why) in zip(ps, _precompile(ps, "auto", device)):
            if r is not None:
                _RUNNERS[(p.key, device)] = r
            report.append((p.key, r.kernel if r is not None else f"no kernel: {why}"))
    if verbose:
        ok = sum(1 for _, k in report if not k.startswith("no kernel"))
        print(f"gconv.torch.precompile: {len(seen)} convolutions, {ok} of {len(report)} new kernels ready")
        for key, k in report:
            if k.startswith("no kernel"):
                print(f"  {key}: {k}")
    return report


def _graph_ms(fn, iters: int = 10, warmup: int = 3, replays: int = 5) -> float:
    """GPU time (ms) of one ``fn()``: ``iters`` calls captured in one CUDA graph (no host time
    between the kernels), replayed ``replays`` times; the median replay divided by ``iters``.
    The warm-up runs on a side stream first (it also compiles what ``fn`` needs)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(warmup):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(iters):
            fn()
    times = []
    for _ in range(replays):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    return sorted(times)[len(times) // 2] / iters


def tune(model: torch.nn.Module, *inputs, iters: int = 10, verbose: bool = True, **kwargs) -> list:
    """Measures each distinct convolution that ``model`` (already :func:`convert`-ed) runs on
    gconv for ``inputs`` — its forward and both gradients on random data of its shapes, GPU
    time in CUDA graphs — on gconv and on PyTorch's own convolution, and from then on runs it
    on the faster of the two (for the process; ``untune()`` forgets). Call it inside the same
    ``torch.autocast`` context as the training step. Returns ``(problem key, gconv ms, torch
    ms, "gconv" | "torch")`` per convolution."""
    seen = _record_pass(model, inputs, kwargs)
    _precompile_seen(seen, True, False)
    report = []
    for x_shape, w_shape, dtype, stride, padding, dilation, groups, device in seen:
        sig = (tuple(x_shape), tuple(w_shape), dtype, stride, padding, dilation, groups)
        if sig in _TUNED:
            continue
        rank = len(x_shape) - 2
        dev = torch.device("cuda", device)
        x = _as_channels_last(torch.randn(x_shape, device=dev).to(dtype))
        w = _as_channels_last(torch.randn(w_shape, device=dev).to(dtype))
        x.requires_grad_(True)
        w.requires_grad_(True)
        with torch.no_grad():
            y = _TORCH_CONV[rank](x, w, None, stride, padding, dilation, groups)
        dy = _as_channels_last(torch.randn(y.shape, device=dev).to(dtype))

        def fwd_bwd(f):
            return lambda: torch.autograd.grad(f(x, w, None, stride, padding, dilation, groups), (x, w), dy)

        ours = _graph_ms(fwd_bwd(lambda x, w, b, *conv: _Conv.apply(x, w, b, conv, x.dtype)), iters)
        theirs = _graph_ms(fwd_bwd(_TORCH_CONV[rank]), iters)
        _TUNED[sig] = ours <= theirs
        key = _problem("fwd", sig[0], sig[1], _DTYPES[dtype], stride, padding, dilation, groups).key
        report.append((key, ours, theirs, "gconv" if ours <= theirs else "torch"))
    if verbose:
        kept = sum(1 for r in report if r[3] == "gconv")
        print(f"gconv.torch.tune: {kept} of {len(report)} convolutions faster on gconv (forward + both gradients)")
        for key, ours, theirs, who in report:
            print(f"  {key}: gconv {ours:.4f} ms, torch {theirs:.4f} ms -> {who}")
    return report


def untune() -> None:
    """Forgets :func:`tune`'s choices: every converted convolution runs on gconv again."""
    _TUNED.clear()


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
        try:
            _string_padding(m.padding, m.kernel_size, m.stride, m.dilation, len(m.kernel_size))
        except ValueError as e:
            return str(e).removeprefix("gconv.torch: ")
    if getattr(m, "transposed", False):
        return "a transposed convolution"
    return None


class _GconvConv:
    """Mixin: the forward of a ``torch.nn.ConvNd`` on gconv (CUDA tensors of float32, float16
    or bfloat16), torch's own elsewhere (CPU tensors, float64, padding modes gconv lacks)."""

    _rank = 2

    def forward(self, x):  # noqa: D401
        if not x.is_cuda or _supported(self) is not None:
            return super().forward(x)
        if x.dtype not in _DTYPES and not torch.is_autocast_enabled("cuda"):
            return super().forward(x)  # float64 (or another dtype gconv has no kernels for)
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


def _kind(m: torch.nn.modules.conv._ConvNd) -> str:
    """depthwise, grouped, pointwise (dense 1x1) or dense."""
    if m.groups > 1:
        return "depthwise" if m.groups == m.in_channels else "grouped"
    return "pointwise" if all(k == 1 for k in m.kernel_size) else "dense"


def convert(model: torch.nn.Module, dense: Union[bool, str] = False, verbose: bool = True) -> list:
    """Swaps ``model``'s convolutions for the gconv modules in place, sharing their parameters:
    the grouped and depthwise ones (and channel multipliers) by default; with
    ``dense="pointwise"`` the dense 1x1 ones too, with ``dense=True`` every dense one.
    ``model`` may itself be a convolution (reported as ``"<model>"``). Returns (and with ``verbose`` prints) what it did with each: ``(name, "swapped")`` or
    ``(name, "left: why")``."""
    if dense not in (False, True, "pointwise"):
        raise ValueError(f"gconv.torch.convert: dense={dense!r}; give False, True or 'pointwise'")
    report = []
    # Every module whose class has a gconv twin: the children of every module, and the model
    # itself when it is a bare convolution (named "<model>"). The class swap is in place, so a
    # bare convolution is converted as well as a child is.
    found = [("<model>", model)] if type(model) in _SWAP else []
    for name, m in list(model.named_modules()):
        for child_name, child in list(m.named_children()):
            found.append((f"{name}.{child_name}" if name else child_name, child))
    for full, child in found:
        cls = _SWAP.get(type(child))
        if cls is None:
            base = next((b for b in _SWAP if isinstance(child, b)), None)
            if base is not None and not isinstance(child, _GconvConv):
                # A subclass (timm's Conv2dSame, a weight-standardised conv, ...): its own
                # forward may do what gconv's would skip, so it stays as it is.
                report.append((full, f"left: {type(child).__name__} subclasses torch.nn.{base.__name__} "
                                     "with a forward of its own"))
            continue
        why = _supported(child)
        kind = _kind(child)
        if why is None and kind == "dense" and dense is not True:
            why = "dense (groups=1; convert(model, dense=True) swaps those too)"
        if why is None and kind == "pointwise" and not dense:
            why = "dense 1x1 (convert(model, dense='pointwise') swaps those too)"
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
