"""gconv: grouped convolutions in every direction, 1D/2D/3D, f32/f16/bf16.

The runner API of seed 001's dispatcher: a :class:`Problem` (one convolution, given by its key
or its fields), and a :class:`Runner` that resolves a kernel (``"auto"``, ``"ref"``, a CPU
variant) on a backend once and then runs the problem on arrays, following the argument
contract of the three directions::

    forward          run(x, w)   -> y
    backward data    run(dy, w)  -> dx
    backward weight  run(x, dy)  -> dw

or by name (``run(x=x, dy=dy)``), which cannot be swapped.

NumPy arrays run on the CPU backend. Arrays are in gconv's layouts, the byte order of PyTorch's
``channels_last`` tensors (``Problem.shape`` gives each shape):

    x   (N, [D, H,] W, C)         channels last
    w   (K, [Z, Y,] X, C/G)       a channels_last weight of shape K x C/G x [Z x Y x] X
    y   (N, [Do, Ho,] Wo, K)      channels last

f32 and f16 are ``numpy.float32`` and ``numpy.float16``. NumPy has no bfloat16: give bf16
tensors as ``numpy.uint16`` arrays holding the bits (:func:`to_bf16` and :func:`from_bf16`
convert), or as ``ml_dtypes.bfloat16`` arrays when that package is installed; the output comes
back in the same form. Every refusal is a ``ValueError`` (or ``TypeError`` for what is not an
array or not an integer) carrying gconv's message; a failed run is a ``RuntimeError``.
"""

from __future__ import annotations

import operator
from typing import Sequence, Union

import numpy as np

from ._gconv import Problem, __version__
from ._gconv import Runner as _Runner
from ._gconv import add_library_dirs as _add_library_dirs

__all__ = [
    "Problem",
    "Runner",
    "problem",
    "to_bf16",
    "from_bf16",
    "__version__",
]

_Ints = Union[int, Sequence[int]]


def _wheel_library_dirs() -> list:
    """The ``nvidia/*/lib`` folders on ``sys.path``: where the CUDA wheels that PyTorch
    installs keep NVRTC (``nvidia/cu13/lib``) and cuDNN (``nvidia/cudnn/lib``)."""
    import glob
    import os
    import sys

    dirs = []
    for entry in sys.path:
        if entry and os.path.isdir(os.path.join(entry, "nvidia")):
            dirs.extend(sorted(d for d in glob.glob(os.path.join(entry, "nvidia", "*", "lib")) if os.path.isdir(d)))
    return dirs


# The CUDA libraries are found without LD_LIBRARY_PATH: these folders are looked in after
# GCONV_CUDA_LIB_DIRS and before CUDA_HOME and /usr/local/cuda (errors name every folder).
_add_library_dirs(_wheel_library_dirs())

_NUMPY_DTYPES = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16)}


def _int(value, name: str) -> int:
    """One integer field: a Python or NumPy integer (a float, a string or a bool is refused
    rather than truncated or read digit by digit), within the 64-bit range gconv takes."""
    if isinstance(value, (bool, np.bool_, str, bytes)):
        raise TypeError(f"{name}: expected an integer, got {type(value).__name__} {value!r}")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(
            f"{name}: expected an integer, got {type(value).__name__} {value!r}"
        ) from None
    if not -(2**63) <= v < 2**63:
        raise ValueError(f"{name}: {v} is out of range")
    return v


def _is_sequence(value) -> bool:
    """A list, tuple or array of values (a string is not a sequence of integers)."""
    return hasattr(value, "__iter__") and not isinstance(value, (str, bytes))


def _ints(value, name: str) -> list[int]:
    """A per-axis field given as a sequence of integers."""
    if isinstance(value, (set, frozenset, dict)) or (
        isinstance(value, np.ndarray) and value.ndim != 1
    ):
        # A set or dict has no axis order; a 0-d or 2-d array is not one value per axis.
        raise TypeError(
            f"{name}: expected a sequence of integers in axis order (list, tuple or 1-d "
            f"array), got {type(value).__name__} {value!r}"
        )
    if not _is_sequence(value):
        raise TypeError(
            f"{name}: expected a sequence of integers, got {type(value).__name__} {value!r}"
        )
    return [_int(x, f"{name}[{i}]") for i, x in enumerate(value)]


def _spatial(value: _Ints, rank: int, name: str) -> list[int]:
    if not _is_sequence(value):
        return [_int(value, name)] * rank
    v = _ints(value, name)
    if len(v) != rank:
        raise ValueError(f"{name}: {len(v)} values for a rank-{rank} problem")
    return v


def problem(
    direction: str,
    dtype: str,
    n: int,
    groups: int,
    in_channels: int,
    out_channels: int,
    input: Sequence[int],
    filter: _Ints,
    stride: _Ints = 1,
    padding: _Ints = 0,
    dilation: _Ints = 1,
) -> Problem:
    """A :class:`Problem` from fields, the way ``torch.nn.ConvNd`` names them.

    ``input`` is the spatial size (its length is the rank: 1, 2 or 3); ``filter``, ``stride``,
    ``padding`` and ``dilation`` are one int for every axis or one per axis.
    ``in_channels``/``out_channels`` are totals (C and K), ``groups`` divides both. Every
    value is an integer (Python or NumPy): a float, a string or a bool is a ``TypeError``.
    """
    spatial = _ints(input, "input")
    rank = len(spatial)
    return Problem.from_fields(
        direction,
        dtype,
        _int(n, "n"),
        _int(groups, "groups"),
        _int(in_channels, "in_channels"),
        _int(out_channels, "out_channels"),
        spatial,
        _spatial(filter, rank, "filter"),
        _spatial(stride, rank, "stride"),
        _spatial(padding, rank, "padding"),
        _spatial(dilation, rank, "dilation"),
    )


def to_bf16(a) -> np.ndarray:
    """Float values to bfloat16 bits (``numpy.uint16``), rounded to nearest even once (a
    float64 array is rounded to float32 by rounding to odd first, so the two steps round as
    one; integers and wider floats go through float64, integers exactly below 2**53). An
    ``ml_dtypes.bfloat16`` array
    gives its bits. Arrays that hold no real numbers (complex, bool, strings, objects such as
    ``None``) and ``uint16`` arrays (already bfloat16 bits: converting them again would read
    the bits as numbers) are a ``TypeError``."""
    src = np.asarray(a)
    if src.dtype.name == "bfloat16":
        if not src.dtype.isnative:
            src = src.astype(src.dtype.newbyteorder("="))
        return np.ascontiguousarray(src).view(np.uint16).copy()
    if src.dtype == np.uint16:
        raise TypeError(
            "to_bf16: the array is uint16, which gconv reads as bfloat16 bits already; pass "
            "the float values (from_bf16 turns bits back into values)"
        )
    if src.dtype.kind not in "fiu":
        raise TypeError(
            f"to_bf16: expected real numbers (float or integer), got dtype {src.dtype}"
        )
    if src.dtype.kind in "iu" or (src.dtype.kind == "f" and src.dtype.itemsize > 8):
        src = src.astype(np.float64)
    with np.errstate(over="ignore"):  # past float32's range is infinity, as in bfloat16
        f = np.ascontiguousarray(src, dtype=np.float32)
    bits = f.view(np.uint32).copy()
    if src.dtype == np.float64:
        # Round to odd: where float32 rounded, take the value truncated toward zero and set
        # its last bit; the second rounding then sees that the value was not a tie.
        d = np.ascontiguousarray(src, dtype=np.float64)
        inexact = np.isfinite(d) & (f.astype(np.float64) != d)
        away = inexact & (np.abs(f.astype(np.float64)) > np.abs(d))
        bits[away] -= 1
        bits[inexact] |= 1
    nan = np.isnan(f)
    rounded = (bits + (np.uint32(0x7FFF) + ((bits >> 16) & 1))) >> 16
    out = rounded.astype(np.uint16)
    out[nan] = 0x7FC0
    return out


def from_bf16(bits) -> np.ndarray:
    """bfloat16 to float32 values: bits as ``numpy.uint16`` (what :func:`to_bf16` returns), an
    ``ml_dtypes.bfloat16`` array, or a list of bit patterns. Any other array dtype is a
    ``TypeError`` (its values are not bfloat16 bits)."""
    b = np.asarray(bits)
    if b.dtype.name == "bfloat16":
        return b.astype(np.float32)
    if b.dtype != np.uint16:
        plain_ints = (
            not isinstance(bits, np.ndarray)
            and b.dtype.kind in "iu"
            and bool(((b >= 0) & (b <= 0xFFFF)).all())
        )
        if not plain_ints:
            raise TypeError(
                f"from_bf16: expected bfloat16 bits as numpy.uint16 or an ml_dtypes.bfloat16 "
                f"array, got dtype {b.dtype}"
            )
    b = np.ascontiguousarray(b, dtype=np.uint16)
    return (b.astype(np.uint32) << 16).view(np.float32)


def _array_dtype(a: np.ndarray, name: str) -> str:
    if a.dtype == np.float32:
        return "f32"
    if a.dtype == np.float16:
        return "f16"
    if a.dtype.name == "bfloat16" and not a.dtype.isnative:
        # Its bytes would be read in the machine's order: a silently wrong answer.
        raise ValueError(
            f"{name}: ml_dtypes.bfloat16 in non-native byte order; convert it with "
            f".astype(ml_dtypes.bfloat16) first"
        )
    if a.dtype == np.uint16 or a.dtype.name == "bfloat16":
        return "bf16"
    raise ValueError(
        f"{name}: dtype {a.dtype}; gconv takes float32 (f32), float16 (f16), and bf16 as "
        "uint16 bits or ml_dtypes.bfloat16"
    )


class Runner:
    """A problem, a kernel and a backend, resolved once (see the module documentation).

    ``kernel``: ``"auto"`` (the backend's choice), ``"ref"`` (the f64 reference) or a CPU
    variant (``"cpu_direct"``, ``"cpu_im2col_gemm"``). ``backend``: ``"auto"`` or ``"cpu"``
    for NumPy arrays.
    """

    def __init__(self, problem: Union[Problem, str], kernel: str = "auto", backend: str = "auto"):
        if isinstance(problem, str):
            problem = Problem(problem)
        if not isinstance(problem, Problem):
            raise TypeError(f"problem: expected gconv.Problem or a key, got {type(problem).__name__}")
        self._runner = _Runner(problem, kernel, backend)

    @property
    def problem(self) -> Problem:
        """The problem."""
        return self._runner.problem

    @property
    def kernel(self) -> str:
        """The kernel that runs (what ``"auto"`` resolved to)."""
        return self._runner.kernel

    @property
    def backend(self) -> str:
        """The backend that runs it."""
        return self._runner.backend

    def __repr__(self) -> str:
        return repr(self._runner)

    def __reduce__(self):
        # Unpickled as the kernel it resolved to, so a child process runs the same kernel.
        return (Runner, (self.problem, self.kernel, self.backend))

    def _input(self, index: int, a) -> tuple[bytes, np.dtype]:
        p = self.problem
        role = p.inputs[index]
        label = {"x": "X", "w": "W", "y": "dY"}[role]
        if not isinstance(a, np.ndarray):
            raise TypeError(
                f"{label} of {p.key}: expected a numpy.ndarray, got {type(a).__name__}"
            )
        if isinstance(a, np.ma.MaskedArray):
            raise TypeError(
                f"{label} of {p.key}: a masked array (gconv would read the masked values); "
                "give a.filled(0) or a plain array"
            )
        dt = _array_dtype(a, f"{label} of {p.key}")
        self._runner.check_input(index, dt, [int(s) for s in a.shape])
        return np.ascontiguousarray(a).tobytes(), a.dtype

    def _arguments(self, a, b, named: dict) -> tuple:
        """The two inputs in the contract's order, from positions or from names (``x``,
        ``w``, ``dy``: the names of the problem's direction, each checked)."""
        given = {k: v for k, v in named.items() if v is not None}
        if not given:
            if a is None or b is None:
                raise TypeError(f"{self.problem.key}: run takes two inputs")
            return a, b
        p = self.problem
        want = ["dy" if r == "y" else r for r in p.inputs]
        if a is not None or b is not None:
            raise TypeError(
                f"{p.key}: give the inputs by position or by name ({want[0]}=, {want[1]}=), "
                "not both"
            )
        if sorted(given) != sorted(want):
            raise TypeError(
                f"{p.key}: a {p.direction} problem takes {want[0]}= and {want[1]}=, got "
                + ", ".join(f"{k}=" for k in sorted(given))
            )
        return given[want[0]], given[want[1]]

    def _inputs(self, a, b, named: dict):
        a, b = self._arguments(a, b, named)
        (ab, adt), (bb, bdt) = self._input(0, a), self._input(1, b)
        if adt != bdt:
            raise ValueError(
                f"{self.problem.key}: the inputs are {adt} and {bdt}; give both in one form"
            )
        return ab, bb, adt

    def run(self, a=None, b=None, *, x=None, w=None, dy=None) -> np.ndarray:
        """Runs the problem on its two inputs and returns the output: by position in the
        contract's order (``run(x, w)``, ``run(dy, w)``, ``run(x, dy)``), or by name
        (``run(x=..., dy=...)``), which cannot be swapped (backward weight's ``x`` and ``dy``
        often have one shape)."""
        ab, bb, dt = self._inputs(a, b, {"x": x, "w": w, "dy": dy})
        out = self._runner.run_bytes(ab, bb)
        p = self.problem
        return np.frombuffer(out, dtype=dt).reshape(p.shape(p.output)).copy()

    def benchmark(self, a=None, b=None, runs: int = 10, *, x=None, w=None, dy=None) -> dict:
        """Times ``runs`` whole runs (1 to 100,000) after one warm-up, as ``gconv run``
        reports a CPU run: ``median_ms``, ``min_ms``, ``runs``, ``method``, and the rates of
        the median (``tflops``, ``gbps``, ``roofline_fraction`` of the H200's). The inputs as
        for :meth:`run`. Ctrl-C stops it between runs (``KeyboardInterrupt``)."""
        runs = _int(runs, "runs")
        ab, bb, _ = self._inputs(a, b, {"x": x, "w": w, "dy": dy})
        median, fastest, n, method = self._runner.benchmark_bytes(ab, bb, runs)
        p = self.problem
        s = median / 1e3
        return {
            "median_ms": median,
            "min_ms": fastest,
            "runs": n,
            "method": method,
            "tflops": p.flops / s / 1e12,
            "gbps": p.min_bytes / s / 1e9,
            "roofline_fraction": p.roofline_seconds() / s,
        }
