"""05: a grouped convolution on CUDA tensors with gconv.torch, forward and both gradients,
checked against torch.nn.functional in float64 (needs PyTorch and a CUDA GPU).

python python/examples/05_torch_conv.py
"""

import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    torch = None
if torch is None or not torch.cuda.is_available():
    print("05_torch_conv: needs PyTorch and a CUDA GPU; nothing to run here")
    sys.exit(0)

import gconv
import gconv.torch as gt

torch.manual_seed(0)
# N=8, C=K=256, G=32 (C/G = 8), 28x28, 3x3, stride 2: a ResNeXt-style layer, channels_last bf16
x = torch.randn(8, 256, 28, 28, device="cuda", dtype=torch.bfloat16).to(memory_format=torch.channels_last)
w = (torch.randn(256, 8, 3, 3, device="cuda") / 8.5).to(torch.bfloat16).to(memory_format=torch.channels_last)
x.requires_grad_(True)
w.requires_grad_(True)
y = gt.conv2d(x, w, None, stride=2, padding=1, groups=32)
dy = torch.randn_like(y)
dx, dw = torch.autograd.grad(y, (x, w), dy)

x64, w64 = x.detach().double().requires_grad_(True), w.detach().double().requires_grad_(True)
y64 = F.conv2d(x64, w64, None, stride=2, padding=1, groups=32)
dx64, dw64 = torch.autograd.grad(y64, (x64, w64), dy.double())
for name, got, want in (("fwd", y, y64), ("dgrad", dx, dx64), ("wgrad", dw, dw64)):
    err = ((got.double() - want).abs().max() / want.abs().max()).item()
    p = gconv.problem(name, "bf16", n=8, groups=32, in_channels=256, out_channels=256,
                      input=[28, 28], filter=3, stride=2, padding=1)
    r = gt.runner(p, x.device.index or 0)  # the process's compiled runner of that problem
    print(f"problem {p.key}\n  kernel {r.kernel} (chosen by {r.chosen_by}), max rel err {err:.2e}")
    assert err < 3e-2, (name, err)
