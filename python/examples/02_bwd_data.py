"""02: backward data (dX from dY and W) of a strided depthwise layer, in bf16.

python python/examples/02_bwd_data.py
"""

import numpy as np

import gconv

p = gconv.problem("bwd_data", "bf16", n=2, groups=96, in_channels=96, out_channels=96,
                  input=[28, 28], filter=3, stride=2, padding=1)
print("problem ", p.key, "inputs", p.inputs, "->", p.output)
rng = np.random.default_rng(0)
# NumPy has no bfloat16: bf16 tensors are uint16 arrays of the bits.
dy = gconv.to_bf16(rng.uniform(-1, 1, p.shape("y")))
w = gconv.to_bf16(rng.uniform(-1, 1, p.shape("w")))
runner = gconv.Runner(p)
dx = runner.run(dy, w)  # the contract: bwd_data(dY, W)
print("kernel  ", runner.kernel, "->", dx.shape, dx.dtype)
ref = gconv.Runner(p, kernel="ref").run(dy, w)
err = np.abs(gconv.from_bf16(dx) - gconv.from_bf16(ref)).max()
print("max |dx - ref| =", float(err), "(bf16 rounding of each output)")
