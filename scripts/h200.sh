#!/usr/bin/env bash
# Builds the release binary here (x86-64, glibc ≤ 2.39) and packs it for the H200 machine
# (CUDA 13.0 in /usr/local/cuda, driver 580, cuDNN 9 in the system library path, no cargo
# there), then prints the steps to run the GPU correctness matrix and a benchmark.
#
#   scripts/h200.sh [BRANCH ...]
#
# Each BRANCH's binary is built too (in a git worktree of its own) and packed as
# target/BRANCH-NAME/gconv beside target/release/gconv, for an A/B run in one lease. The pack
# is target/carry/bins.tar.xz with stripped binaries: the device tool carries at most 64 MiB
# together with the working tree, which two unstripped binaries no longer fit beside.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release
# The decision-time example (issue #14's "under 50 µs per decision") measured on the GPU host.
cargo build --release -p gconv-learn --example decision_time
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
pack() { # pack SRC DEST: a stripped copy of SRC at DEST inside the pack
  mkdir -p "$stage/$(dirname "$2")"
  if command -v strip >/dev/null 2>&1; then strip -o "$stage/$2" "$1"; else cp "$1" "$stage/$2"; fi
}
pack target/release/gconv target/release/gconv
pack target/release/examples/decision_time target/release/examples/decision_time
bins="target/release/gconv target/release/examples/decision_time"
for branch in "$@"; do
  name=${branch##*/}
  wt=${TMPDIR:-/tmp}/gconv-worktree-$name
  if [ -d "$wt" ]; then
    git -C "$wt" checkout --quiet --detach "$branch"
  else
    git worktree add --quiet --detach "$wt" "$branch"
  fi
  (cd "$wt" && cargo build --release -p gconv)
  pack "$wt/target/release/gconv" "target/$name/gconv"
  bins="$bins target/$name/gconv"
done
mkdir -p target/carry
tar cJf target/carry/bins.tar.xz -C "$stage" target
ls -l target/carry/bins.tar.xz
cat <<STEPS

Packed: $bins. With the device tool, carry ["target/carry/bins.tar.xz"] and start the
command with: tar xJf target/carry/bins.tar.xz && ...  Then, on the GPU machine:

  export GCONV_CACHE_DIR=\${TMPDIR:-/tmp}/gconv-cache; unset LD_LIBRARY_PATH
  bin=target/release/gconv
  \$bin info
  \$bin selftest --gpu
  # The zoo benches (27 keys each; pool members compiled by NVRTC in the background on 15
  # threads while earlier kernels are timed; cuDNN's engines timed in the same run). A second
  # run on the same GCONV_CACHE_DIR compiles nothing.
  timeout 300 \$bin bench --problems model_zoo --direction fwd --vs cudnn --output bench_fwd.csv --batch-size 200 --workers 16
  timeout 300 \$bin bench --problems model_zoo --direction dgrad --vs cudnn --output bench_dgrad.csv --batch-size 200 --workers 16
  timeout 300 \$bin bench --problems model_zoo --direction wgrad --vs cudnn --output bench_wgrad.csv --batch-size 200 --workers 16
  \$bin bench --problems configs/problems/fwd_unseen.txt --vs cudnn --output bench_unseen.csv --batch-size 200 --workers 16
  scripts/ncu_best.sh bench_fwd.csv fwd_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1 direct
  \$bin sweep --variant forward --problems forward_2d_test_validation --config configs/traits/forward_bf16.json --vs cudnn --output sweep_fwd.csv

To spend the lease timing rather than compiling, compile the calls' kernels here first (NVRTC
only; the cache key holds NVRTC's major.minor, 13.0 on both machines) and carry the cache:

  GCONV_CACHE_DIR=target/gc \$bin cache build --problems model_zoo --direction wgrad
  tar cJf target/carry/gc.tar.xz -C target gc   # carry it too; there: tar xJf target/carry/gc.tar.xz -C /tmp

The working tree travels with every call (64 MiB with the carried files): where the compile
cache does not fit beside it, scripts/slim_tree.sh hide PATH... leaves only the results/ paths the
call needs on disk, and scripts/slim_tree.sh restore puts the rest back.

The device tool brings back at most 8 files from \$OUT per call: pack outputs into one
tarball there (tar czf \$OUT/out.tgz -C \$OUT r). \$bin compare A.csv B.csv pairs two runs.
STEPS
