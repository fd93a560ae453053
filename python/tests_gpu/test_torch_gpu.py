"""gconv.torch on a CUDA device against torch.nn.functional in float64 (run on the GPU
machine: `python -m pytest python/tests_gpu`; skipped without torch or a GPU)."""

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


def test_convert_swaps_grouped_convolutions_and_keeps_the_keys():
    m = torch.nn.Sequential(
        torch.nn.Conv2d(16, 32, 1),
        torch.nn.Conv2d(32, 32, 3, padding=1, groups=32),
        torch.nn.Conv2d(32, 32, 3, padding="same", groups=4),
    ).cuda()
    keys = list(m.state_dict().keys())
    report = gt.convert(m, verbose=False)
    assert [r for _, r in report].count("swapped") == 1
    assert list(m.state_dict().keys()) == keys
    assert isinstance(m[1], gt.Conv2d) and not isinstance(m[0], gt.Conv2d)
    x = torch.randn(2, 16, 9, 9, device="cuda")
    m(x).sum().backward()
    assert m[1].weight.grad is not None


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
