"""06: convert a torchvision model's grouped and depthwise convolutions to gconv, compile its
kernels ahead of the first step, and train a few steps in bf16 autocast (needs PyTorch,
torchvision and a CUDA GPU).

python python/examples/06_convert_and_train.py
"""

import sys

try:
    import torch
    import torchvision
except ImportError:
    torch = None
if torch is None or not torch.cuda.is_available():
    print("06_convert_and_train: needs PyTorch, torchvision and a CUDA GPU; nothing to run here")
    sys.exit(0)

import gconv.torch as gt

torch.manual_seed(0)
model = torchvision.models.mobilenet_v3_small(num_classes=10).cuda().to(memory_format=torch.channels_last)
report = gt.convert(model)  # prints what it swapped and why it left the others
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
images = torch.randn(16, 3, 128, 128, device="cuda").to(memory_format=torch.channels_last)
labels = torch.randint(0, 10, (16,), device="cuda")
with torch.autocast("cuda", dtype=torch.bfloat16):
    compiled = gt.precompile(model, images)  # every kernel of this shape, in parallel
for key, kernel in compiled[:3]:
    print(f"problem {key}\n  kernel {kernel}")
for step in range(5):
    opt.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
