# Session 30, call 0 (not run in session 30: the first call of the next session, about 2 min).
# A smoke test of every TMA-fed variant before the sweeps: each `wgmmatma` kernel alone with
# --verify on a zoo layer (pointwise and im2col, the three directions, f16 once), every
# `wgmmatma` tile of the three TMA trait configs over the correctness matrix (`selftest --gpu
# --config`: its pointwise and C/G 128 cases), then two
# small host-emulation cases (an im2col tile across two images; pointwise backward weight with
# split-K) under compute-sanitizer's memcheck: an out-of-bounds copy or a bad tensor-map
# address shows there, named. Every line of verify.log says PASS or why not.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s30/call_0.sh; cd $OUT && tar czf z.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
while read -r p k; do
  v=$(timeout 40 $B run --backend cuda --problem $p --kernel $k --iters 5 --verify 2>&1 | tr '\n' ' ')
  echo "$p $k | $v" >> $R/verify.log
done <<'LIST'
fwd_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1 igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmatma_pw
dgrad_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1 igemm_dgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmatma_pw
wgrad_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1 igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk0d_wgmmatma_pw
fwd_f16_n32_g1_c160_k160_i28x28_f1x1_s1x1_p0x0_d1x1 igemm_fwd_f16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmmatma_pw
fwd_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmatma_gen
fwd_bf16_n32_g1_c128_k256_i56x56_f3x3_s2x2_p1x1_d1x1 igemm_fwd_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmmatma_gen
dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 igemm_dgrad_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmmatma_gen
wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk0d_wgmmatma_gen
LIST
echo "verify ${SECONDS}s" >> $R/progress.log
# every wgmmatma tile of the three TMA trait configs over the correctness matrix (its pointwise
# case and its C/G 128 case in bf16), with the reference kernel on every case
for v in forward bwd_data bwd_weight; do
  timeout 120 $B selftest --gpu --config configs/traits/${v}_tma_bf16.json --kernels _wgmmatma_ > $R/selftest_$v.log 2>&1
  echo "selftest $v rc=$? ${SECONDS}s" >> $R/progress.log
done
for pk in \
  "fwd_bf16_n2_g2_c128_k192_i9x11_f3x3_s1x1_p1x1_d1x1 igemm_fwd_bf16_t128x128x64_w8x1_s3_v8x8_gm1_sk1d_wgmmatma_gen" \
  "wgrad_bf16_n2_g2_c192_k320_i9x9_f1x1_s1x1_p0x0_d1x1 igemm_wgrad_bf16_t128x128x64_w8x1_s3_v8x8_gm1_sk3d_wgmmatma_pw"; do
  set -- $pk
  timeout 100 compute-sanitizer --tool memcheck $B run --backend cuda --problem $1 --kernel $2 --iters 1 --verify --no-graph \
    > $R/memcheck_$(echo $1 | cut -d_ -f1).txt 2>&1
  echo "memcheck $1 rc=$? ${SECONDS}s" >> $R/progress.log
done
true
