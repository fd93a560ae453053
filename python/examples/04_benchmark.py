"""04: time the CPU variants of one problem, as `gconv run --backend cpu` reports them.

python python/examples/04_benchmark.py
"""

import numpy as np

import gconv

p = gconv.Problem("fwd_f32_n4_g64_c64_k64_i28x28_f3x3_s1x1_p1x1_d1x1")
rng = np.random.default_rng(0)
x = rng.uniform(-1, 1, p.shape("x")).astype(np.float32)
w = rng.uniform(-1, 1, p.shape("w")).astype(np.float32)
print("problem ", p.key)
for kernel in ["auto", "cpu_direct", "cpu_im2col_gemm"]:
    r = gconv.Runner(p, kernel=kernel)
    b = r.benchmark(x, w, runs=5)
    print(f"{kernel:16s} -> {r.kernel:16s} {b['median_ms']:8.3f} ms  "
          f"{b['gbps']:7.1f} GB/s  ({b['method']})")
