"""gconv.torch on a CUDA device against torch.nn.functional in float64 (run on the GPU
machine: `python -m pytest python/tests_gpu`; skipped without torch or a GPU)."""

import copy

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402

import gconv.torch as gt  # noqa: E402

TOL = {torch.float32: 1e-4, torch.float16: 4e-3, torch.bfloat16: 3e-2}
FUNCS = {1: (gt.conv1d, F.conv1d), 2: (gt.conv2d, F.conv2d), 3: (gt.conv3d, F.conv3d)}

CASES = [
    # rank, N, C, K, G, size, filter, stride, padding, dilation
    (2, 4, 64, 64, 1, 14, 3, 1, 1, 1),      # dense
    (2, 8, 128, 128, 32, 14, 3, 1, 1, 1),   # grouped C/G 4
    (2, 8, 96, 96, 96, 28, 3, 2, 1, 1),     # depthwise, strided
    (2, 4, 64, 128, 64, 14, 5, 1, 2, 1),    # channel multiplier
    (2, 4, 48, 48, 48, 17, 3, 1, 2, 2),     # depthwise, dilated, odd size
    (2, 8, 256, 256, 2, 7, 1, 1, 0, 1),     # grouped pointwise
    (1, 4, 64, 64, 64, 50, 4, 1, 3, 1),     # 1D depthwise (Mamba-style)
    (3, 2, 32, 32, 32, 8, 3, 1, 1, 1),      # 3D depthwise
    (3, 2, 32, 64, 4, 6, 3, 2, 1, 1),       # 3D grouped, strided
]


def _rel(got, want):
    return ((got.double() - want).abs().max() / want.abs().max().clamp_min(1e-30)).item()


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("channels_last", [True, False])
def test_forward_and_both_gradients_match_torch(dtype, case, channels_last):
    rank, n, c, k, g, size, f, s, p, d = case
    torch.manual_seed(0)
    dev = "cuda"
    x = torch.randn(n, c, *([size] * rank), device=dev).to(dtype)
    w = (torch.randn(k, c // g, *([f] * rank), device=dev) / (c // g * f**rank) ** 0.5).to(dtype)
    if channels_last and rank in (2, 3):
        fmt = torch.channels_last if rank == 2 else torch.channels_last_3d
        x = x.to(memory_format=fmt)
        w = w.to(memory_format=fmt)
    x.requires_grad_(True)
    w.requires_grad_(True)
    ours, theirs = FUNCS[rank]
    y = ours(x, w, None, s, p, d, g)
    x64 = x.detach().double().requires_grad_(True)
    w64 = w.detach().double().requires_grad_(True)
    y64 = theirs(x64, w64, None, s, p, d, g)
    assert y.shape == y64.shape and y.dtype == dtype
    assert _rel(y, y64) < TOL[dtype], ("forward", _rel(y, y64))
    dy = torch.randn_like(y64)
    y.backward(dy.to(dtype))
    y64.backward(dy)
    assert _rel(x.grad, x64.grad) < TOL[dtype], ("dgrad", _rel(x.grad, x64.grad))
    assert _rel(w.grad, w64.grad) < TOL[dtype], ("wgrad", _rel(w.grad, w64.grad))


def test_zero_copy_for_channels_last_and_no_sync_on_the_current_stream():
    torch.manual_seed(0)
    x = torch.randn(8, 96, 28, 28, device="cuda", dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    w = torch.randn(96, 1, 3, 3, device="cuda", dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    gt.conv2d(x, w, None, 1, 1, 1, 96)  # compile once
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        a = x * 2  # work on the same stream before ...
        y = gt.conv2d(a, w, None, 1, 1, 1, 96)
        z = y + 1  # ... and after
    torch.cuda.synchronize()
    want = F.conv2d(a.double(), w.double(), None, 1, 1, 1, 96) + 1
    assert _rel(z, want) < TOL[torch.bfloat16]
    r = gt.runner(gt._problem("fwd", x.shape, w.shape, "bf16", (1, 1), (1, 1), (1, 1), 96), 0)
    assert r.kernel and r.chosen_by


class _OwnForward(torch.nn.Conv2d):
    """A subclass with a forward of its own (as timm's Conv2dSame): convert leaves it."""

    def forward(self, x):
        return super().forward(x) * 2


def test_convert_swaps_grouped_convolutions_and_keeps_the_keys():
    m = torch.nn.Sequential(
        torch.nn.Conv2d(16, 32, 1),
        torch.nn.Conv2d(32, 32, 3, padding=1, groups=32),
        torch.nn.Conv2d(32, 32, 3, padding="same", groups=4),
        torch.nn.Conv2d(32, 32, 4, padding="same", groups=4),  # asymmetric: left
        _OwnForward(32, 32, 3, padding=1, groups=8),
        torch.nn.Conv2d(32, 32, (5, 3), padding="valid", groups=2),
    ).cuda()
    ref = copy.deepcopy(m)
    keys = list(m.state_dict().keys())
    report = dict(gt.convert(m, verbose=False))
    assert [report[k] for k in ("1", "2", "5")] == ["swapped"] * 3, report
    assert "asymmetrically" in report["3"] and "forward of its own" in report["4"], report
    assert report["0"].startswith("left: dense 1x1"), report
    assert list(m.state_dict().keys()) == keys
    assert isinstance(m[1], gt.Conv2d) and not isinstance(m[0], gt.Conv2d)
    assert type(m[4]) is _OwnForward
    x = torch.randn(2, 16, 9, 9, device="cuda")
    tf32 = torch.backends.cudnn.allow_tf32
    torch.backends.cudnn.allow_tf32 = False  # the dense 1x1 runs on torch in both
    try:
        y = m(x)
        y_ref = ref(x)
    finally:
        torch.backends.cudnn.allow_tf32 = tf32
    assert _rel(y, y_ref.double()) < 4 * TOL[torch.float32]
    y.sum().backward()
    assert m[1].weight.grad is not None and m[2].weight.grad is not None
    with pytest.raises(ValueError, match="stride 1"):
        gt.conv2d(torch.randn(2, 32, 9, 9, device="cuda"), m[2].weight, None, 2, "same", 1, 4)


def test_autocast_runs_bf16_and_mixed_dtypes_are_refused():
    torch.manual_seed(0)
    m = torch.nn.Conv2d(64, 64, 3, padding=1, groups=16).cuda().to(memory_format=torch.channels_last)
    ref = torch.nn.Conv2d(64, 64, 3, padding=1, groups=16).cuda()
    ref.load_state_dict(m.state_dict())
    gt.convert(m, verbose=False)
    x = torch.randn(4, 64, 14, 14, device="cuda").to(memory_format=torch.channels_last)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        y = m(x)
        y_ref = ref(x)
    assert y.dtype == torch.bfloat16
    assert _rel(y, y_ref.double()) < 2 * TOL[torch.bfloat16]
    with pytest.raises(ValueError, match="one dtype"):
        gt.conv2d(x.half(), m.weight, None, 1, 1, 1, 16)


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_bias_and_autocast_gradients_match_torch(rank):
    """A module with a bias under bf16 autocast on float32 parameters and input (what a
    training step does): the output in bf16, every gradient in float32 and close to torch's
    own autocast run (the casts and the bias live inside gconv's autograd node)."""
    torch.manual_seed(0)
    ref = {1: torch.nn.Conv1d, 2: torch.nn.Conv2d, 3: torch.nn.Conv3d}[rank](32, 48, 3, padding=1, groups=8).cuda()
    m = copy.deepcopy(ref)
    assert dict(gt.convert(m, verbose=False))["<model>"] == "swapped"
    x = torch.randn(2, 32, *([7] * rank), device="cuda")
    xm, xr = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        y, y_ref = m(xm), ref(xr)
    assert y.dtype == y_ref.dtype == torch.bfloat16
    assert _rel(y, y_ref.double()) < 2 * TOL[torch.bfloat16]
    dy = torch.randn_like(y_ref)
    y.backward(dy)
    y_ref.backward(dy)
    for what, got, want in (("input", xm.grad, xr.grad), ("weight", m.weight.grad, ref.weight.grad),
                            ("bias", m.bias.grad, ref.bias.grad)):
        assert got.dtype == want.dtype == torch.float32, what
        assert _rel(got, want.double()) < 2 * TOL[torch.bfloat16], (what, _rel(got, want.double()))


class _Recorder:
    """Stands in for a compiled runner: records the addresses each launch gets, then launches."""

    def __init__(self, inner, log):
        self.inner, self.log = inner, log
        self.workspace_bytes = inner.workspace_bytes

    def launch(self, in0, in1, out, ws, stream):
        self.log.append((in0, in1, out))
        self.inner.launch(in0, in1, out, ws, stream)


def test_channels_last_tensors_reach_the_kernels_without_a_copy():
    torch.manual_seed(0)
    x = torch.randn(4, 64, 14, 14, device="cuda", dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    w = torch.randn(64, 4, 3, 3, device="cuda", dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    x.requires_grad_(True)
    w.requires_grad_(True)
    y = gt.conv2d(x, w, None, 1, 1, 1, 16)  # plans and compiles the three directions
    dy = torch.randn_like(y)
    y.backward(dy)
    log = []
    # a plan is (runner, ...): swap its runner for a recorder, keep the rest as it is
    for key, (r, *rest) in list(gt._PLANS.items()):
        gt._PLANS[key] = (_Recorder(r, log), *rest)
    try:
        y = gt.conv2d(x, w, None, 1, 1, 1, 16)
        assert log[-1][:2] == (x.data_ptr(), w.data_ptr())
        assert log[-1][2] == y.data_ptr()
        y.backward(dy)
        torch.cuda.synchronize()
        ptrs = {p for entry in log[1:] for p in entry[:2]}
        assert dy.data_ptr() in ptrs and x.data_ptr() in ptrs and w.data_ptr() in ptrs
        assert len(log) == 3
    finally:
        for key, (r, *rest) in list(gt._PLANS.items()):
            if isinstance(r, _Recorder):
                gt._PLANS[key] = (r.inner, *rest)


def test_torch_compile_keeps_the_convolution_as_one_op():
    torch.manual_seed(0)
    m = torch.nn.Sequential(
        torch.nn.Conv2d(32, 32, 3, padding=1, groups=32), torch.nn.ReLU(), torch.nn.Conv2d(32, 64, 3, padding=1, groups=8)
    ).cuda().to(memory_format=torch.channels_last)
    ref = copy.deepcopy(m).double()
    gt.convert(m, verbose=False)
    x = torch.randn(4, 32, 16, 16, device="cuda").to(memory_format=torch.channels_last)
    compiled = torch.compile(m, fullgraph=True)  # a graph break would raise
    y = compiled(x)
    y.sum().backward()
    y_ref = ref(x.double())
    y_ref.sum().backward()
    assert _rel(y, y_ref) < TOL[torch.float32]
    for (n, a), (_, b) in zip(m.named_parameters(), ref.named_parameters()):
        assert _rel(a.grad, b.grad) < TOL[torch.float32], n


def test_precompile_compiles_every_direction_before_the_first_step():
    m = torch.nn.Sequential(
        torch.nn.Conv2d(16, 16, 3, padding=1, groups=16), torch.nn.Conv2d(16, 32, 3, stride=2, padding=1, groups=4)
    ).cuda().to(memory_format=torch.channels_last)
    gt.convert(m, verbose=False)
    x = torch.randn(2, 16, 12, 12, device="cuda").to(memory_format=torch.channels_last)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        report = gt.precompile(m, x, verbose=False)
        keys = {k for k, _ in report}
        assert any(k.startswith("fwd_bf16") for k in keys) and any(k.startswith("wgrad_bf16") for k in keys)
        assert all(not r.startswith("no kernel") for _, r in report), report
        before = len(gt._RUNNERS)
        m(x).float().sum().backward()
    assert len(gt._RUNNERS) == before  # nothing compiled in the step



def test_tune_keeps_each_convolution_on_the_faster_side_and_the_results_stay_right():
    torch.manual_seed(0)
    m = torch.nn.Sequential(
        torch.nn.Conv2d(64, 64, 3, padding=1, groups=64), torch.nn.Conv2d(64, 64, 3, padding=1, groups=8)
    ).cuda().to(memory_format=torch.channels_last)
    ref = copy.deepcopy(m).double()
    gt.convert(m, verbose=False)
    x = torch.randn(4, 64, 16, 16, device="cuda").to(memory_format=torch.channels_last)
    tf32 = torch.backends.cudnn.allow_tf32
    torch.backends.cudnn.allow_tf32 = False  # either side may run a layer: both in full f32
    try:
        report = gt.tune(m, x, verbose=False)
        assert len(report) == 2 and all(r[3] in ("gconv", "torch") and r[1] > 0 and r[2] > 0 for r in report)
        assert len(gt._TUNED) == 2
        y = m(x)
        y.sum().backward()
        y_ref = ref(x.double())
        y_ref.sum().backward()
        assert _rel(y, y_ref) < TOL[torch.float32]
        for (n, a), (_, b) in zip(m.named_parameters(), ref.named_parameters()):
            assert _rel(a.grad, b.grad) < TOL[torch.float32], n
    finally:
        gt.untune()
        torch.backends.cudnn.allow_tf32 = tf32
    assert not gt._TUNED


def test_second_derivatives_are_refused_and_float64_modules_run_on_torch():
    x = torch.randn(2, 8, 6, 6, device="cuda", requires_grad=True)
    w = torch.randn(8, 1, 3, 3, device="cuda", requires_grad=True)
    y = gt.conv2d(x, w, None, 1, 1, 1, 8)
    (gx,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    with pytest.raises(RuntimeError):
        gx.sum().backward()
    m = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8).cuda().double()
    gt.convert(m, verbose=False)
    assert isinstance(m, gt.Conv2d)
    xd = torch.randn(2, 8, 6, 6, device="cuda", dtype=torch.float64)
    assert m(xd).dtype == torch.float64  # torch's own convolution, no error


def test_a_view_at_an_element_offset_is_copied_to_an_aligned_tensor():
    # The kernels move 16-byte vectors from the tensors' base addresses: a channels_last input
    # that starts one element (2 bytes) into its storage is copied (with a warning), and the
    # raw runner refuses such an address with an error instead of launching.
    torch.manual_seed(0)
    n, c, h, wd = 2, 16, 10, 10
    flat = torch.randn(n * h * wd * c + 8, device="cuda", dtype=torch.bfloat16)
    x = flat[1:1 + n * h * wd * c].view(n, h, wd, c).permute(0, 3, 1, 2)  # NCHW view, NHWC memory
    assert x.is_contiguous(memory_format=torch.channels_last) and x.data_ptr() % 16 != 0
    w = torch.randn(c, 1, 3, 3, device="cuda", dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    with pytest.warns(UserWarning, match="16-byte boundary"):
        y = gt.conv2d(x, w, None, 1, 1, 1, c)
    want = F.conv2d(x.double(), w.double(), None, 1, 1, 1, c)
    assert _rel(y, want) < TOL[torch.bfloat16]
    r, *_ = next(v for k, v in gt._PLANS.items() if k[:3] == ("fwd", tuple(x.shape), tuple(w.shape)))
    with pytest.raises(Exception, match="not 16-byte aligned"):
        r.launch(x.data_ptr(), w.data_ptr(), y.data_ptr(), 0, 0)


def test_weights_biases_and_groups_that_torch_refuses_are_refused():
    """The kernels read K * taps * C/G weights with C from the input: a weight of another
    channel count (which torch's conv refuses) must not reach them, nor a bias of another
    length (which broadcasting would hide), nor a fractional group count."""
    x = torch.randn(2, 64, 14, 14, device="cuda").to(memory_format=torch.channels_last)
    w = torch.randn(64, 4, 3, 3, device="cuda")
    assert gt.conv2d(x, w, None, 1, 1, 1, 16).shape == (2, 64, 14, 14)
    with pytest.raises(ValueError, match="input channels per group"):
        gt.conv2d(x, torch.randn(64, 1, 3, 3, device="cuda"), None, 1, 1, 1, 16)
    with pytest.raises(ValueError, match="input channels per group"):
        gt.conv2d(x, torch.randn(64, 8, 3, 3, device="cuda"), None, 1, 1, 1, 16)
    with pytest.raises(ValueError, match="bias"):
        gt.conv2d(x, w, torch.randn(1, device="cuda"), 1, 1, 1, 16)
    with pytest.raises(TypeError, match="groups"):
        gt.conv2d(x, w, None, 1, 1, 1, 16.0)
