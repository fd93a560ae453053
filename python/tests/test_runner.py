"""The Python runner on the CPU backend against an independent NumPy reference (float64, written
here from the definition of a grouped convolution in channels-last layouts), in every direction
and dtype, plus the argument contract and the error paths."""

import itertools

import numpy as np
import pytest

import gconv

EPS = {"f32": 2.0**-23, "f16": 2.0**-10, "bf16": 2.0**-7}


def _taps(p):
    return list(itertools.product(*[range(f) for f in p["filter"]]))


def _window(p, tap, out):
    """Slices of the padded input that tap `tap` reads for every output position."""
    return tuple(
        slice(t * d, t * d + (o - 1) * s + 1, s)
        for t, d, o, s in zip(tap, p["dilation"], out, p["stride"])
    )


def _out_size(p):
    return [
        (i + 2 * q - d * (f - 1) - 1) // s + 1
        for i, q, d, f, s in zip(p["input"], p["padding"], p["dilation"], p["filter"], p["stride"])
    ]


def _pad(p, x):
    return np.pad(x, [(0, 0)] + [(q, q) for q in p["padding"]] + [(0, 0)])


def ref_fwd(p, x, w):
    g, (n, c, k) = p["groups"], (p["n"], p["c"], p["k"])
    out = _out_size(p)
    xp = _pad(p, x).reshape(n, *[i + 2 * q for i, q in zip(p["input"], p["padding"])], g, c // g)
    wg = w.reshape(g, k // g, *p["filter"], c // g)
    y = np.zeros((n, *out, g, k // g))
    for tap in _taps(p):
        xs = xp[(slice(None),) + _window(p, tap, out)]
        y += np.einsum("n...gc,gkc->n...gk", xs, wg[(slice(None), slice(None)) + tap])
    return y.reshape(n, *out, k)


def ref_dgrad(p, dy, w):
    g, (n, c, k) = p["groups"], (p["n"], p["c"], p["k"])
    out = _out_size(p)
    padded = [i + 2 * q for i, q in zip(p["input"], p["padding"])]
    dxp = np.zeros((n, *padded, g, c // g))
    dyg = dy.reshape(n, *out, g, k // g)
    wg = w.reshape(g, k // g, *p["filter"], c // g)
    for tap in _taps(p):
        dxp[(slice(None),) + _window(p, tap, out)] += np.einsum(
            "n...gk,gkc->n...gc", dyg, wg[(slice(None), slice(None)) + tap]
        )
    crop = tuple(slice(q, q + i) for q, i in zip(p["padding"], p["input"]))
    return dxp[(slice(None),) + crop].reshape(n, *p["input"], c)


def ref_wgrad(p, x, dy):
    g, (n, c, k) = p["groups"], (p["n"], p["c"], p["k"])
    out = _out_size(p)
    xp = _pad(p, x).reshape(n, *[i + 2 * q for i, q in zip(p["input"], p["padding"])], g, c // g)
    dyg = dy.reshape(n, *out, g, k // g)
    dw = np.zeros((g, k // g, *p["filter"], c // g))
    for tap in _taps(p):
        xs = xp[(slice(None),) + _window(p, tap, out)]
        dw[(slice(None), slice(None)) + tap] = np.einsum(
            "nsgk,nsgc->gkc", dyg.reshape(n, -1, g, k // g), xs.reshape(n, -1, g, c // g)
        )
    return dw.reshape(k, *p["filter"], c // g)


REFERENCE = {"fwd": ref_fwd, "dgrad": ref_dgrad, "wgrad": ref_wgrad}

GEOMETRIES = [
    # dense-ish 2D, strided and padded
    dict(n=2, groups=2, c=6, k=4, input=[7, 6], filter=[3, 2], stride=[2, 1], padding=[1, 1], dilation=[1, 1]),
    # depthwise 2D with dilation
    dict(n=1, groups=5, c=5, k=5, input=[6, 7], filter=[3, 3], stride=[1, 1], padding=[2, 2], dilation=[2, 2]),
    # channel multiplier 1D, stride > filter
    dict(n=2, groups=3, c=3, k=6, input=[11], filter=[2], stride=[3], padding=[1], dilation=[1]),
    # grouped 3D, G not a power of two, odd channels
    dict(n=1, groups=3, c=9, k=6, input=[3, 4, 5], filter=[2, 3, 1], stride=[1, 2, 1], padding=[1, 1, 0], dilation=[1, 1, 1]),
]


def make(direction, dtype, geo):
    return gconv.problem(
        direction, dtype, geo["n"], geo["groups"], geo["c"], geo["k"], geo["input"],
        geo["filter"], geo["stride"], geo["padding"], geo["dilation"],
    )


def rounded_input(dtype, shape, rng):
    """Random values in [-1, 1) in the dtype's form, and their exact float64 values."""
    v = rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)
    if dtype == "f32":
        return v, v.astype(np.float64)
    if dtype == "f16":
        h = v.astype(np.float16)
        return h, h.astype(np.float64)
    bits = gconv.to_bf16(v)
    return bits, gconv.from_bf16(bits).astype(np.float64)


def as_f64(dtype, a):
    return gconv.from_bf16(a).astype(np.float64) if dtype == "bf16" else a.astype(np.float64)


def close(dtype, got, want):
    """Max-norm relative error within a few units of the dtype's rounding (the CPU backend
    accumulates in f32 and rounds once)."""
    scale = max(np.abs(want).max(), 1e-30)
    return np.abs(got - want).max() <= 4 * max(EPS[dtype], 2.0**-20) * scale


@pytest.mark.parametrize("direction", ["fwd", "dgrad", "wgrad"])
@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("geo", range(len(GEOMETRIES)))
@pytest.mark.parametrize("kernel", ["auto", "cpu_direct", "cpu_im2col_gemm", "ref"])
def test_every_direction_and_dtype_matches_numpy(direction, dtype, geo, kernel):
    g = GEOMETRIES[geo]
    p = make(direction, dtype, g)
    rng = np.random.default_rng(7 + geo)
    (a, a64), (b, b64) = (rounded_input(dtype, p.shape(role), rng) for role in p.inputs)
    runner = gconv.Runner(p, kernel=kernel)
    assert runner.backend == "cpu"
    if kernel != "auto":
        assert runner.kernel == kernel
    out = runner.run(a, b)
    assert out.shape == tuple(p.shape(p.output))
    assert out.dtype == a.dtype
    want = REFERENCE[direction](g, a64, b64)
    got = as_f64(dtype, out)
    assert close(dtype, got, want), (p.key, kernel, np.abs(got - want).max())
    # The check is not vacuous: a result off by one element's worth of one input fails it.
    wrong = got.copy()
    wrong.flat[len(wrong.flat) // 2] += 0.1 * np.abs(want).max() + 0.1
    assert not close(dtype, wrong, want)


@pytest.mark.parametrize("direction", ["fwd", "dgrad", "wgrad"])
def test_a_planted_wrong_kernel_fails_the_comparison(direction):
    """cpu_planted_wrong drops the last filter tap: the comparison used above must catch it."""
    g = GEOMETRIES[0]
    p = make(direction, "f32", g)
    rng = np.random.default_rng(3)
    (a, a64), (b, b64) = (rounded_input("f32", p.shape(role), rng) for role in p.inputs)
    want = REFERENCE[direction](g, a64, b64)
    good = gconv.Runner(p, kernel="cpu_direct").run(a, b).astype(np.float64)
    bad = gconv.Runner(p, kernel="cpu_planted_wrong").run(a, b).astype(np.float64)
    assert close("f32", good, want)
    assert not close("f32", bad, want)


def test_the_reference_here_is_not_symmetric_in_its_mistakes():
    """A flipped filter, swapped groups or a stride ignored give other results, so the test
    above can fail on a layout or contract mistake."""
    g = GEOMETRIES[3]
    rng = np.random.default_rng(1)
    p = make("fwd", "f32", g)
    x = rng.uniform(-1, 1, p.shape("x"))
    w = rng.uniform(-1, 1, p.shape("w"))
    y = ref_fwd(g, x, w)
    assert not np.allclose(y, ref_fwd(g, x, w[:, ::-1, ::-1, ::-1, :]))
    assert not np.allclose(y, ref_fwd(g, x, np.roll(w, w.shape[0] // 3, axis=0)))
    runner = gconv.Runner(p)
    got = runner.run(x.astype(np.float32), w.astype(np.float32))
    assert close("f32", got.astype(np.float64), y)
    assert not close("f32", got.astype(np.float64), ref_fwd(g, x, np.roll(w, 1, axis=-1)))


def test_problem_from_a_key_and_from_fields():
    key = "fwd_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1"
    p = gconv.Problem(key)
    assert p.key == key and str(p) == key and p.direction == "fwd" and p.dtype == "bf16"
    assert p.rank == 2 and p.groups == 4
    assert p.shape("x") == [2, 9, 9, 16]
    assert p.shape("w") == [32, 3, 3, 4]
    assert p.shape("y") == [2, 5, 5, 32]
    assert p.inputs == ("x", "w") and p.output == "y"
    assert p.flops == 2 * 2 * 5 * 5 * 32 * 4 * 9
    assert p.roofline_seconds() > 0 and p.min_bytes > 0
    q = gconv.problem("fwd", "bf16", 2, 4, 16, 32, [9, 9], 3, stride=2, padding=1)
    assert q == p and hash(q) == hash(p)
    d = p.with_direction("bwd_data")
    assert d.direction == "dgrad" and d.inputs == ("y", "w") and d.output == "x"
    assert p.with_direction("wgrad").inputs == ("x", "y")
    assert "gconv.Problem" in repr(p)


@pytest.mark.parametrize(
    "make_problem, message",
    [
        (lambda: gconv.Problem("fwd_bf16_n2_g3_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1"), "invalid problem"),
        (lambda: gconv.Problem("not a key"), "not a key"),
        (lambda: gconv.problem("fwd", "f64", 1, 1, 4, 4, [5, 5], 3), "f64"),
        (lambda: gconv.problem("sideways", "f32", 1, 1, 4, 4, [5, 5], 3), "sideways"),
        (lambda: gconv.problem("fwd", "f32", 1, 1, 4, 4, [5, 5], [3, 3, 3]), "filter"),
        (lambda: gconv.problem("fwd", "f32", 1, 1, 4, 4, [2, 2], 5), "invalid problem"),
        (lambda: gconv.Problem("fwd_f32_n1_g1_c4_k4_i5x5_f3x3_s1x1_p1x1_d1x1").shape("z"), "z"),
    ],
)
def test_bad_problems_are_value_errors(make_problem, message):
    with pytest.raises(ValueError, match=message):
        make_problem()


def test_bad_kernels_and_backends_are_value_errors():
    p = gconv.Problem("dgrad_f16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1")
    with pytest.raises(ValueError, match="igemm_bogus"):
        gconv.Runner(p, kernel="igemm_bogus")
    with pytest.raises(ValueError, match="a GPU kernel"):
        gconv.Runner(p, kernel="igemm_dgrad_f16_t128x128x32_w2x2_s3_v8x8_gm1_sk1d_mma_gen")
    with pytest.raises(ValueError, match="on purpose"):
        gconv.Runner(p, kernel="cpu_planted_crash")
    with pytest.raises(ValueError, match="auto, cpu or cuda"):
        gconv.Runner(p, backend="gpu")
    with pytest.raises(ValueError, match="device memory"):
        gconv.Runner(p, backend="cuda")
    with pytest.raises(TypeError, match="gconv.Problem"):
        gconv.Runner(42)


def test_the_argument_contract_is_checked():
    p = gconv.Problem("dgrad_f32_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1")
    r = gconv.Runner(p)
    dy = np.zeros(p.shape("y"), np.float32)
    w = np.zeros(p.shape("w"), np.float32)
    assert r.run(dy, w).shape == tuple(p.shape("x"))
    # swapped: W where dY belongs
    with pytest.raises(ValueError, match=r"dY of .*expected \[2, 5, 5, 32\]"):
        r.run(w, dy)
    # a contiguous NCHW-shaped array is the wrong layout
    with pytest.raises(ValueError, match="channels-last"):
        r.run(np.zeros((2, 32, 5, 5), np.float32), w)
    with pytest.raises(ValueError, match="dtype"):
        r.run(dy.astype(np.float64), w)
    with pytest.raises(ValueError, match="dtype f16, expected f32"):
        r.run(dy.astype(np.float16), w)
    with pytest.raises(TypeError, match="numpy.ndarray"):
        r.run(dy.tolist(), w)
    h = gconv.Runner(p.with_direction("fwd"))  # fwd f32: x, w
    with pytest.raises(ValueError, match="X of"):
        h.run(np.zeros((2, 9, 9, 15), np.float32), w)
    # a non-contiguous view of the right shape is accepted (copied)
    x = np.zeros((2, 9, 9, 32), np.float32)[:, :, :, ::2]
    assert not x.flags.c_contiguous
    assert h.run(x, w).shape == (2, 5, 5, 32)


def test_bf16_bits_round_to_nearest_even():
    v = np.array([1.0, -2.5, 1.0 + 2.0**-8, 1.0 + 3 * 2.0**-8, np.inf, 3.0e38], np.float32)
    bits = gconv.to_bf16(v)
    assert bits.dtype == np.uint16
    back = gconv.from_bf16(bits)
    assert back[0] == 1.0 and back[1] == -2.5
    assert back[2] == 1.0  # a tie goes to the even neighbour
    assert back[3] == 1.0 + 2.0**-6
    assert np.isinf(back[4])
    assert np.isnan(gconv.from_bf16(gconv.to_bf16(np.array([np.nan], np.float32))))[0]


def test_benchmark_reports_like_the_cli():
    p = gconv.Problem("wgrad_f32_n2_g4_c16_k32_i9x9_f3x3_s1x1_p1x1_d1x1")
    r = gconv.Runner(p)
    x = np.ones(p.shape("x"), np.float32)
    dy = np.ones(p.shape("y"), np.float32)
    b = r.benchmark(x, dy, runs=3)
    assert b["runs"] == 3 and 0 < b["min_ms"] <= b["median_ms"]
    assert "median of 3 runs" in b["method"]
    assert b["tflops"] > 0 and b["gbps"] > 0 and 0 < b["roofline_fraction"] < 1
    assert r.kernel in ("cpu_direct", "cpu_im2col_gemm")
    assert "gconv.Runner" in repr(r)


def test_the_device_runner_says_why_it_cannot_run():
    """Without a GPU (CI) the CUDA runner is a ValueError naming the missing driver; a CPU
    variant is refused before any device is touched."""
    from gconv._gconv import DeviceRunner

    p = gconv.Problem("fwd_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1")
    with pytest.raises(ValueError, match="CPU variant"):
        DeviceRunner(p, "cpu_direct")
    try:
        r = DeviceRunner(p)
    except ValueError as e:
        assert "cuda:0" in str(e), e
    else:  # a machine with a GPU
        assert r.kernel and r.workspace_bytes >= 0


def test_library_search_names_the_wheel_folders_and_added_ones(tmp_path, monkeypatch):
    """The CUDA libraries are looked for without LD_LIBRARY_PATH: the `nvidia/*/lib` folders
    on sys.path (the wheels PyTorch installs) and added folders; a library that is missing is
    an error naming every folder looked in."""
    from gconv._gconv import DeviceRunner, add_library_dirs

    lib = tmp_path / "site" / "nvidia" / "cudnn" / "lib"
    lib.mkdir(parents=True)
    (tmp_path / "site" / "nvidia" / "nolib").mkdir()
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert gconv._wheel_library_dirs()[0] == str(lib)
    extra = tmp_path / "extra"
    add_library_dirs([str(extra)])
    p = gconv.Problem("fwd_bf16_n2_g4_c16_k32_i9x9_f3x3_s2x2_p1x1_d1x1")
    try:
        DeviceRunner(p)
    except ValueError as e:  # no driver here (CI): the message lists the search
        assert "looked in" in str(e) and str(extra) in str(e), e


@pytest.mark.parametrize(
    "make_problem, error, message",
    [
        (lambda: gconv.problem("fwd", "f32", 1, 1, 4, 4, [5.9, 5.2], 3), TypeError, r"input\[0\]"),
        (lambda: gconv.problem("fwd", "f32", 1, 1, 4, 4, [5, 5], [2.7, 3.9]), TypeError, "filter"),
        (lambda: gconv.problem("fwd", "f32", 1, 1, 4, 4, "55", 3), TypeError, "input"),
        (lambda: gconv.problem("fwd", "f32", 1, 1, 4, 4, 5, 3), TypeError, "input"),
        (lambda: gconv.problem("fwd", "f32", 1, 1, 4, 4, [5, 5], True), TypeError, "filter"),
        (lambda: gconv.problem("fwd", "f32", 1, 1, 4, 4, [5, 5], 3, stride=1.5), TypeError, "stride"),
        (lambda: gconv.problem("fwd", "f32", 1, 1, 4, 4, [5, 5], 3, padding=None), TypeError, "padding"),
        (lambda: gconv.problem("fwd", "f32", 1.0, 1, 4, 4, [5, 5], 3), TypeError, "n:"),
        (lambda: gconv.problem("fwd", "f32", 2**70, 1, 4, 4, [5, 5], 3), ValueError, "n: .* out of range"),
        (lambda: gconv.problem("fwd", "f32", 1, 1, 4, 4, [2**70, 5], 3), ValueError, r"input\[0\]"),
    ],
)
def test_fields_are_integers_named_when_refused(make_problem, error, message):
    """A float is not truncated, a string is not read digit by digit, a bool is not 1, and a
    value past 64 bits is a ValueError naming its field (not an OverflowError)."""
    with pytest.raises(error, match=message):
        make_problem()
    # NumPy integers are integers.
    assert gconv.problem("fwd", "f32", np.int64(1), 1, 4, 4, np.array([5, 5]), np.int32(3)).key == (
        "fwd_f32_n1_g1_c4_k4_i5x5_f3x3_s1x1_p0x0_d1x1"
    )


def test_inputs_by_name_cannot_be_swapped():
    """Backward weight's X and dY often have one shape (a depthwise 3x3 'same' layer): by
    position a swap is not detectable, by name it is not possible."""
    p = gconv.Problem("wgrad_f32_n2_g8_c8_k8_i6x6_f3x3_s1x1_p1x1_d1x1")
    assert p.shape("x") == p.shape("y")
    rng = np.random.default_rng(5)
    x = rng.standard_normal(p.shape("x")).astype(np.float32)
    dy = rng.standard_normal(p.shape("y")).astype(np.float32)
    r = gconv.Runner(p)
    by_position = r.run(x, dy)
    np.testing.assert_array_equal(r.run(dy=dy, x=x), by_position)
    assert not np.allclose(r.run(dy, x), by_position)  # what a positional swap gives
    with pytest.raises(TypeError, match="takes x= and dy="):
        r.run(x=x, w=dy)
    with pytest.raises(TypeError, match="not both"):
        r.run(x, dy=dy)
    with pytest.raises(TypeError, match="two inputs"):
        r.run(x)
    f = gconv.Runner(p.with_direction("fwd"))
    w = np.ones(p.shape("w"), np.float32)
    np.testing.assert_array_equal(f.run(w=w, x=x), f.run(x, w))
    b = r.benchmark(x=x, dy=dy, runs=2)
    assert b["runs"] == 2


def test_masked_arrays_are_refused():
    p = gconv.Problem("fwd_f32_n1_g1_c4_k4_i5x5_f3x3_s1x1_p1x1_d1x1")
    x = np.ma.masked_array(np.ones(p.shape("x"), np.float32))
    with pytest.raises(TypeError, match="masked"):
        gconv.Runner(p).run(x, np.ones(p.shape("w"), np.float32))


def test_bf16_conversions_refuse_values_that_are_not_bits():
    with pytest.raises(TypeError, match="uint16"):
        gconv.from_bf16(np.array([1.5, 2.0]))
    with pytest.raises(TypeError, match="uint16"):
        gconv.from_bf16(np.array([-1]))
    assert gconv.from_bf16([0x3F80, 0xC020]).tolist() == [1.0, -2.5]
    # float64 rounds once: 1 + 2^-8 + 2^-40 is above the tie, so it rounds up (rounding to
    # float32 first would drop the 2^-40 and make it a tie that goes down to 1.0).
    v = np.array([1 + 2.0**-8 + 2.0**-40, -(1 + 2.0**-8 + 2.0**-40), 1 + 2.0**-8, 1e300, 1e-300])
    back = gconv.from_bf16(gconv.to_bf16(v))
    assert back[0] == 1 + 2.0**-7 and back[1] == -(1 + 2.0**-7)
    assert back[2] == 1.0 and np.isinf(back[3]) and back[4] == 0.0


@pytest.mark.parametrize("runs", [0, -1, 2**32 - 1, 100_001])
def test_benchmark_runs_out_of_range_are_value_errors(runs):
    p = gconv.Problem("fwd_f32_n1_g1_c1_k1_i1_f1_s1_p0_d1")
    a = np.ones((1, 1, 1), np.float32)
    with pytest.raises(ValueError, match=f"runs {runs}: a benchmark times 1 to 100000 runs"):
        gconv.Runner(p).benchmark(a, a, runs=runs)


def test_benchmark_stops_on_ctrl_c():
    """SIGINT during a long benchmark is a KeyboardInterrupt between runs, not a wait for the
    last of them."""
    import os
    import signal
    import threading
    import time

    p = gconv.Problem("fwd_f32_n2_g4_c16_k16_i16x16_f3x3_s1x1_p1x1_d1x1")
    r = gconv.Runner(p)
    x, w = np.ones(p.shape("x"), np.float32), np.ones(p.shape("w"), np.float32)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            r.benchmark(x, w, runs=100_000)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 30


def test_a_forked_child_runs_after_the_parent_did():
    """A child forked after the parent ran gconv (a multiprocessing pool, a data-loader
    worker) runs too: rayon's global pool would leave it waiting for threads it does not have."""
    import os
    import time

    p = gconv.Problem("fwd_f32_n4_g8_c64_k64_i16x16_f3x3_s1x1_p1x1_d1x1")
    x, w = np.ones(p.shape("x"), np.float32), np.ones(p.shape("w"), np.float32)
    for kernel in ("cpu_direct", "cpu_im2col_gemm", "ref"):
        r = gconv.Runner(p, kernel=kernel)
        want = r.run(x, w)
        pid = os.fork()
        if pid == 0:  # the child
            ok = np.array_equal(r.run(x, w), want)
            os._exit(0 if ok else 3)
        deadline = time.monotonic() + 60
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                pytest.fail(f"{kernel}: the forked child did not finish its run in 60 s")
            time.sleep(0.05)
        assert os.waitstatus_to_exitcode(status) == 0, kernel


def test_problems_and_runners_pickle_as_what_they_resolved_to():
    import copy
    import pickle

    p = gconv.Problem("dgrad_f32_n2_g4_c8_k8_i6x6_f3x3_s2x2_p1x1_d1x1")
    q = pickle.loads(pickle.dumps(p))
    assert q == p and hash(q) == hash(p) and q.key == p.key
    assert copy.deepcopy(p) == p
    r = gconv.Runner(p, kernel="cpu_direct", backend="cpu")
    s = pickle.loads(pickle.dumps(r))
    assert (s.problem, s.kernel, s.backend) == (p, "cpu_direct", "cpu")
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal(p.shape(t)).astype(np.float32) for t in p.inputs)
    assert np.array_equal(r.run(a, b), s.run(a, b))
    # `auto` is pickled as the kernel it resolved to.
    t = pickle.loads(pickle.dumps(gconv.Runner(p)))
    assert t.kernel == gconv.Runner(p).kernel


def test_to_bf16_refuses_what_is_not_real_numbers_and_rounds_integers_once():
    with pytest.raises(TypeError, match="uint16"):
        gconv.to_bf16(gconv.to_bf16(np.float32([1, 2])))  # bits converted again
    for bad in (np.array([1 + 2j]), [None, 1.0], ["1.5"], np.array([True])):
        with pytest.raises(TypeError, match="real numbers"):
            gconv.to_bf16(bad)
    # 2^24 + 2^16 + 1 is above the tie between its two bf16 neighbours: it rounds up
    # (through float32 first it would become the tie 2^24 + 2^16 and go down to 2^24).
    for v in (np.array([2**24 + 2**16 + 1], np.int64), [2**24 + 2**16 + 1]):
        assert gconv.from_bf16(gconv.to_bf16(v)).tolist() == [16908288.0]


def test_ml_dtypes_bfloat16_in_either_byte_order():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bf16 = np.dtype(ml_dtypes.bfloat16)
    v = np.array([1.0, -2.5, 3.0], bf16)
    assert gconv.to_bf16(v).tolist() == [0x3F80, 0xC020, 0x4040]
    assert gconv.to_bf16(v.astype(bf16.newbyteorder(">"))).tolist() == [0x3F80, 0xC020, 0x4040]
    p = gconv.Problem("fwd_bf16_n1_g1_c1_k1_i3_f1_s1_p0_d1")
    x = np.array([[[1.0], [2.0], [3.0]]], bf16)
    w = np.array([[[2.0]]], bf16)
    r = gconv.Runner(p)
    assert r.run(x, w).astype(np.float32).ravel().tolist() == [2.0, 4.0, 6.0]
    swapped = bf16.newbyteorder(">")
    with pytest.raises(ValueError, match="byte order"):
        r.run(x.astype(swapped), w.astype(swapped))


@pytest.mark.parametrize("bad", [{7, 5}, {7: 0, 5: 0}, np.array(5), np.ones((1, 2), int)])
def test_problem_fields_without_an_axis_order_are_refused(bad):
    with pytest.raises(TypeError, match="axis order"):
        gconv.problem("fwd", "f32", 1, 1, 4, 4, bad, 3)
