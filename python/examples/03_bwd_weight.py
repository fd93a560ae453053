"""03: backward weight (dW from X and dY) of a 3D grouped layer, in f16.

python python/examples/03_bwd_weight.py
"""

import numpy as np

import gconv

p = gconv.Problem("wgrad_f16_n2_g4_c32_k32_i4x10x10_f3x3x3_s1x1x1_p1x1x1_d1x1x1")
print("problem ", p.key, "inputs", p.inputs, "->", p.output, p.shape("w"))
rng = np.random.default_rng(0)
x = rng.uniform(-1, 1, p.shape("x")).astype(np.float16)
dy = rng.uniform(-1, 1, p.shape("y")).astype(np.float16)
runner = gconv.Runner(p, kernel="cpu_im2col_gemm")
dw = runner.run(x, dy)  # the contract: bwd_weight(X, dY)
ref = gconv.Runner(p, kernel="ref").run(x, dy)
rel = np.abs(dw.astype(np.float64) - ref.astype(np.float64)).max() / np.abs(ref).max()
print("kernel  ", runner.kernel, "-> dW", dw.shape, f"max relative error {rel:.2e}")
