"""gconv: grouped convolutions in every direction, 1D/2D/3D, f32/f16/bf16.

The runner API of seed 001's dispatcher: a :class:`Problem` (one convolution, given by its key
or its fields), and a :class:`Runner` that resolves a kernel (``"auto"``, ``"ref"``, a CPU
variant) on a backend once and then runs the problem on arrays, following the argument
contract of the three directions::

    forward          run(x, w)   -> y
    backward data    run(dy, w)  -> dx
    backward weight  run(x, dy)  -> dw

NumPy arrays run on the CPU backend. Arrays are in gconv's layouts, the byte order of PyTorch's
``channels_last`` tensors (``Problem.shape`` gives each shape):

    x   (N, [D, H,] W, C)         channels last
    w   (K, [Z, Y,] X, C/G)       a channels_last weight of shape K x C/G x [Z x Y x] X
    y   (N, [Do, Ho,] Wo, K)      channels last

f32 and f16 are ``numpy.float32`` and ``numpy.float16``. NumPy has no bfloat16: give bf16
tensors as ``numpy.uint16`` arrays holding the bits (:func:`to_bf16` and :func:`from_bf16`
convert), or as ``ml_dtypes.bfloat16`` arrays when that package is installed; the output comes
back in the same form. Every refusal is a ``ValueError`` (or ``TypeError`` for what is not an
array) carrying gconv's message; a failed run is a ``RuntimeError``.
"""

from __future__ import annotations

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


def _spatial(value: _Ints, rank: int, name: str) -> list[int]:
    if isinstance(value, (int, np.integer)):
        return [int(value)] * rank
    v = [int(x) for x in value]
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
    ``in_channels``/``out_channels`` are totals (C and K), ``groups`` divides both.
    """
    rank = len(input)
    return Problem.from_fields(
        direction,
        dtype,
        n,
        groups,
        in_channels,
        out_channels,
        [int(x) for x in input],
        _spatial(filter, rank, "filter"),
        _spatial(stride, rank, "stride"),
        _spatial(padding, rank, "padding"),
        _spatial(dilation, rank, "dilation"),
    )


def to_bf16(a) -> np.ndarray:
    """float32 values to bfloat16 bits (``numpy.uint16``), rounding to nearest even."""
    f = np.ascontiguousarray(a, dtype=np.float32)
    bits = f.view(np.uint32)
    nan = np.isnan(f)
    rounded = (bits + (np.uint32(0x7FFF) + ((bits >> 16) & 1))) >> 16
    out = rounded.astype(np.uint16)
    out[nan] = 0x7FC0
    return out


def from_bf16(bits) -> np.ndarray:
    """bfloat16 bits (``numpy.uint16``) to float32 values."""
    b = np.ascontiguousarray(bits, dtype=np.uint16)
    return (b.astype(np.uint32) << 16).view(np.float32)


def _array_dtype(a: np.ndarray, name: str) -> str:
    if a.dtype == np.float32:
        return "f32"
    if a.dtype == np.float16:
        return "f16"
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

    def _input(self, index: int, a) -> tuple[bytes, np.dtype]:
        p = self.problem
        role = p.inputs[index]
        label = {"x": "X", "w": "W", "y": "dY"}[role]
        if not isinstance(a, np.ndarray):
            raise TypeError(
                f"{label} of {p.key}: expected a numpy.ndarray, got {type(a).__name__}"
            )
        dt = _array_dtype(a, f"{label} of {p.key}")
        self._runner.check_input(index, dt, [int(s) for s in a.shape])
        return np.ascontiguousarray(a).tobytes(), a.dtype

    def _inputs(self, a, b):
        (ab, adt), (bb, bdt) = self._input(0, a), self._input(1, b)
        if adt != bdt:
            raise ValueError(
                f"{self.problem.key}: the inputs are {adt} and {bdt}; give both in one form"
            )
        return ab, bb, adt

    def run(self, a, b) -> np.ndarray:
        """Runs the problem on its two inputs (the contract's order) and returns the output."""
        ab, bb, dt = self._inputs(a, b)
        out = self._runner.run_bytes(ab, bb)
        p = self.problem
        return np.frombuffer(out, dtype=dt).reshape(p.shape(p.output)).copy()

    def benchmark(self, a, b, runs: int = 10) -> dict:
        """Times ``runs`` whole runs after one warm-up, as ``gconv run`` reports a CPU run:
        ``median_ms``, ``min_ms``, ``runs``, ``method``, and the rates of the median
        (``tflops``, ``gbps``, ``roofline_fraction`` of the H200's)."""
        ab, bb, _ = self._inputs(a, b)
        median, fastest, n, method = self._runner.benchmark_bytes(ab, bb, int(runs))
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
