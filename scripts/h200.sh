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
  # about 7 minutes on a bare machine (NVRTC compiles ~110 kernels per problem on 16 threads,
  # cuDNN ~25 engines); results/h200/s4/README.md lists the runs of the latest session
  ./$bin bench --problems model_zoo --direction fwd --vs cudnn --output bench_fwd.csv --batch-size 200 --workers 16
  ./$bin bench --problems configs/problems_fwd_unseen.txt --vs cudnn --output bench_unseen.csv --batch-size 200 --workers 16
  ./$bin bench --problems configs/problems_mma_fwd.txt --vs cudnn --output bench_mma.csv --batch-size 60
  ./$bin bench --problems configs/problems_dense_fwd.txt --vs cudnn --output bench_dense.csv --batch-size 60
  scripts/ncu_best.sh bench_fwd.csv fwd_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1 direct
  ./$bin sweep --variant forward --problems forward_2d_test_validation --config configs/forward_bf16.json --vs cudnn --output sweep_fwd.csv

STEPS
