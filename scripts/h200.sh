#!/usr/bin/env bash
# Builds the release binary here (x86-64, glibc ≤ 2.39) and prints the exact steps to run the
# GPU correctness matrix and a benchmark on the H200 machine (CUDA 13.0 in /usr/local/cuda,
# driver 580, cuDNN 9 in the system library path, no cargo there).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release
bin=target/release/gconv
ls -l "$bin"
cat <<STEPS

Copy $bin to the GPU machine (e.g. with the device tool: carry ["$bin"]), then run there:

  export LD_LIBRARY_PATH=/usr/local/cuda/lib64:\${LD_LIBRARY_PATH:-}
  # optional: use PyTorch's newer cuDNN for the baseline
  # export LD_LIBRARY_PATH=\$(python3 -c "import nvidia.cudnn as m; print(list(m.__path__)[0] + '/lib')"):\$LD_LIBRARY_PATH
  export GCONV_CACHE_DIR=\${TMPDIR:-/tmp}/gconv-cache
  ./$bin info
  ./$bin selftest --gpu
  # The forward model-zoo bench: 27 keys, ~60 pool members each compiled by NVRTC (~1,100
  # CPU-seconds on a bare cache, in the background on 15 threads while earlier kernels are
  # timed), ~22 cuDNN engines per key; adaptive repeats and early stop (defaults). Session 4
  # (fixed repeats, compile before timing, host comparison) took 6 min 44 s; the run ends with
  # the time split (phase, seconds, share). A second run on the same GCONV_CACHE_DIR compiles
  # nothing. --early-stop off --fixed-repeats --no-compile-overlap --verify-on-host gives the
  # session-4 method for an A/B run.
  timeout 300 ./$bin bench --problems model_zoo --direction fwd --vs cudnn --output bench_fwd.csv --batch-size 200 --workers 16
  ./$bin bench --problems configs/problems/fwd_unseen.txt --vs cudnn --output bench_unseen.csv --batch-size 200 --workers 16
  ./$bin bench --problems configs/problems/mma_fwd.txt --vs cudnn --output bench_mma.csv --batch-size 60
  ./$bin bench --problems configs/problems/dense_fwd.txt --vs cudnn --output bench_dense.csv --batch-size 60
  scripts/ncu_best.sh bench_fwd.csv fwd_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1 direct
  ./$bin sweep --variant forward --problems forward_2d_test_validation --config configs/traits/forward_bf16.json --vs cudnn --output sweep_fwd.csv

STEPS
