"""One backward-data convolution through PyTorch (cuDNN, channels_last bf16, benchmark mode) for
Nsight Compute: the zoo's C/G 128 g2 layer; the last, profiled iteration inside the NVTX range
"prof" (`ncu --nvtx --nvtx-include "prof/" -k regex:dgrad`)."""
import torch

torch.backends.cudnn.benchmark = True
n, g, c, k, h, w = 32, 2, 256, 256, 28, 28
x = torch.randn(n, c, h, w, device="cuda", dtype=torch.bfloat16).to(memory_format=torch.channels_last)
wt = torch.randn(k, c // g, 3, 3, device="cuda", dtype=torch.bfloat16).to(memory_format=torch.channels_last)
dy = torch.randn(n, k, h, w, device="cuda", dtype=torch.bfloat16).to(memory_format=torch.channels_last)


def step():
    return torch.nn.grad.conv2d_input(x.shape, wt, dy, padding=1, groups=g)


for _ in range(20):
    step()
torch.cuda.synchronize()
ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
ev[0].record()
for _ in range(100):
    step()
ev[1].record()
torch.cuda.synchronize()
print(f"torch dgrad {ev[0].elapsed_time(ev[1]) * 10:.2f} us per call (100 back-to-back)")
torch.cuda.nvtx.range_push("prof")
step()
torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
