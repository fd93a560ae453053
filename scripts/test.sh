#!/usr/bin/env bash
# The README's test command. Works on a fresh machine with the Rust toolchain and Python 3.11:
# installs the pinned NVRTC wheel (CUDA 13.0, no GPU needed) into .venv so that the tests compile
# every generated kernel to an sm_90 CUBIN, runs the whole test suite, then the CPU selftest,
# then builds the Python package into .venv and runs its tests.
set -euo pipefail
cd "$(dirname "$0")/.."

NVRTC_WHEEL="nvidia-cuda-nvrtc==13.0.88"
if ! ls .venv/lib/python3*/site-packages/nvidia/cu13/lib/libnvrtc.so.13 >/dev/null 2>&1; then
  echo "== installing $NVRTC_WHEEL into .venv"
  python3 -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "$NVRTC_WHEEL"
fi
nvrtc_dir=$(dirname "$(ls .venv/lib/python3*/site-packages/nvidia/cu13/lib/libnvrtc.so.13 | head -n 1)")
export LD_LIBRARY_PATH="$PWD/$nvrtc_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Tests that compile kernels fail (instead of skipping) when NVRTC cannot be loaded.
export GCONV_REQUIRE_NVRTC=1
# The host emulation of the generated kernels needs a C++20 g++ and an x86-64 machine (its
# emulated threads switch stacks with x86-64 code); install g++ where it is missing and the
# machine has apt (CI runs as root), and on x86-64 fail (instead of skipping) when it is still
# missing.
if ! command -v g++ >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  echo "== installing g++ (host emulation of generated kernels)"
  apt-get update -qq && apt-get install -y -qq g++ >/dev/null
fi
if [ "$(uname -m)" = x86_64 ]; then
  export GCONV_REQUIRE_HOST_CXX=1
else
  echo "== not x86-64: the host-emulation tests will be skipped"
fi
# Keep the compile cache of the test run inside the build tree.
export GCONV_CACHE_DIR="${GCONV_CACHE_DIR:-$PWD/target/gconv-cache}"

echo "== cargo test (release)"
cargo test --workspace --release -- --skip default_pools_compile
echo "== NVRTC: compile the default kernel pool to sm_90 CUBINs (registers and spills per kernel)"
cargo test --release -p gconv-cuda --test compile_pool -- --nocapture
echo "== gconv selftest (CPU backend against the reference)"
cargo run --release --quiet -- selftest
echo "== Python package: build it with maturin (pip install ./python), pytest on the CPU backend"
.venv/bin/python -m pip install --quiet --disable-pip-version-check "maturin>=1.5,<2" "numpy>=1.24" "pytest>=7" "ml_dtypes>=0.3"
.venv/bin/python -m pip install --quiet --disable-pip-version-check ./python
# From the repository root, so that the installed package (not python/gconv) is imported.
.venv/bin/python -m pytest -q python/tests
