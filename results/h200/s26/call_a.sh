# Session 26, call a: the torch GPU tests after session 25's last gconv.torch changes (checked
# on the CPU only), then where the time goes on the two zoo layers cuDNN still wins in both
# backward directions (C/G 128, G 2, 28²: backward data 27.2 µs against cuDNN's 25.3, backward
# weight 42.7 against 41.8) and on the C/G 32 7×7 backward-weight layer (12.8 against 10.2):
# the vendor's kernels by name and time (torch.profiler), then ncu --set full of ours and of
# the vendor's on each.
#   scripts/h200.sh; (cd python && ../.venv/bin/maturin build --release --out ../target/wheels)
#   carry ["target/carry/bins.tar.xz", "target/wheels"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s26/call_a.sh; cd $OUT && tar czf a.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=$PWD/target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
timeout 90 python3 -m pytest -q -p no:cacheprovider python/tests_gpu > $R/pytest_gpu.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/pytest_gpu.log
D2=dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1
W2=wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1
W32=wgrad_bf16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1
V=results/h200/s26/vendor_kernels.py
timeout 60 python3 $V $D2 $W2 $W32 > $R/vendor.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/vendor.log
prof() { # prof TAG REGEX CMD...: ncu --set full of the first kernel matching REGEX after SKIP
  local tag=$1 re=$2; shift 2
  timeout 100 ncu --set full --import-source yes -k "regex:$re" --launch-skip ${SKIP:-0} -c 1 -o $R/ncu_$tag "$@" > $R/ncu_$tag.log 2>&1
  echo "rc=$? ${SECONDS}s" >> $R/ncu_$tag.log
  timeout 40 ncu --import $R/ncu_$tag.ncu-rep --page details > $R/ncu_$tag.txt 2>&1
  timeout 40 ncu --import $R/ncu_$tag.ncu-rep --page source --csv --print-source sass > $R/src_$tag.csv 2>&1
  rm -f $R/ncu_$tag.ncu-rep
}
KD=igemm_dgrad_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmma_gen
KW=igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk7d_wgmmaws_gen
KC=igemm_wgrad_bf16_t32x64x32_w2x2_s4_v8x8_gm1_sk4d_mma_gen
for pk in "$D2 $KD" "$W2 $KW" "$W32 $KC"; do
  set -- $pk
  $B run --backend cuda --problem $1 --kernel $2 --iters 30 --verify > $R/run_$2.log 2>&1
done
echo "runs ${SECONDS}s"
prof d2_ours "igemm_dgrad" $B run --backend cuda --problem $D2 --kernel $KD --iters 1 --no-graph
prof w2_ours "igemm_wgrad" $B run --backend cuda --problem $W2 --kernel $KW --iters 1 --no-graph
prof w32_ours "igemm_wgrad" $B run --backend cuda --problem $W32 --kernel $KC --iters 1 --no-graph
# the vendor's: the profile's top kernel of each key (its name's first 48 characters)
for t in d2:$D2 w2:$W2 w32:$W32; do
  tag=${t%%:*}; key=${t#*:}
  name=$(grep -A1 "== $key" $R/vendor.log | tail -1 | awk '{print $4}' | cut -c1-48)
  [ -n "$name" ] || continue
  SKIP=20 prof ${tag}_vendor "$name" python3 $V --steps 40 $key
done
echo "all done ${SECONDS}s"
