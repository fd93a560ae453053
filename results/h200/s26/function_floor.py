"""The floor of an eager autograd.Function convolution node on the host (CPU torch, no GPU):
a Function whose forward and backward only allocate their outputs, called and differentiated
as python/benchmarks/host_cpu.py calls gconv.conv2d (session 26, README "Python").

    python3 function_floor.py
"""
import timeit, torch
cl = torch.channels_last
x = torch.randn(1, 32, 8, 8).to(memory_format=cl).requires_grad_(True)
w = torch.randn(32, 1, 3, 3).to(memory_format=cl).requires_grad_(True)
dy = torch.randn(1, 32, 8, 8).to(memory_format=cl)
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b, conv, dtype):
        ctx.save_for_backward(x, w)
        return torch.empty(x.shape, dtype=x.dtype, memory_format=cl)
    @staticmethod
    def backward(ctx, dy):
        x, w = ctx.saved_tensors
        return torch.empty(x.shape, dtype=x.dtype, memory_format=cl), torch.empty(w.shape, dtype=x.dtype, memory_format=cl), None, None, None
def both(): F.apply(x, w, None, ((1,1),(1,1),(1,1),32), torch.float32).backward(dy)
def fwd_only():
    with torch.no_grad(): torch.empty(x.shape, dtype=x.dtype, memory_format=cl)
for fn in (fwd_only, both):
    for _ in range(300): fn()
    print(fn.__name__, min(timeit.repeat(fn, number=2000, repeat=7))/2000*1e6, "us")
