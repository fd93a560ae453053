"""01: a grouped forward convolution on the CPU backend, checked against the f64 reference.

python python/examples/01_forward.py
"""

import numpy as np

import gconv

# 32 groups of 8 channels, 3x3, stride 1, padding 1 (a ResNeXt-style layer, small batch).
p = gconv.problem("fwd", "f32", n=2, groups=32, in_channels=256, out_channels=256,
                  input=[14, 14], filter=3, padding=1)
print("problem ", p.key, f"({p.flops / 1e9:.2f} GFLOP)")
rng = np.random.default_rng(0)
x = rng.uniform(-1, 1, p.shape("x")).astype(np.float32)  # N, H, W, C (channels last)
w = rng.uniform(-1, 1, p.shape("w")).astype(np.float32)  # K, Y, X, C/G
runner = gconv.Runner(p)  # kernel="auto", backend="auto": NumPy arrays run on the CPU
y = runner.run(x, w)
print("kernel  ", runner.kernel, "on", runner.backend, "->", y.shape)
ref = gconv.Runner(p, kernel="ref").run(x, w)
print("max |y - ref| =", float(np.abs(y - ref).max()))
