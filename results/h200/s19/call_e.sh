# Session 19, call 5 (what was left of the device time): main as merged (shipped model and
# decisions, the grown pools, the decision-time changes): `gconv run --kernel auto --verify`
# on the 3D C/G 8 layer in each direction and on two unseen layers, then the backward-data
# GPU selftest (every pool member on every case) until the call's time runs out.
#   tar xJf target/carry/bins.tar.xz && (timeout 400 bash results/h200/s19/call_e.sh; ...)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
for p in fwd_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1 dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1 wgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1 dgrad_bf16_n16_g64_c512_k512_i4x14x14_f3x3x3_s1x1x1_p1x1x1_d1x1x1 fwd_bf16_n16_g16_c128_k128_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1; do
  timeout 30 $B run --backend cuda --problem $p --kernel auto --iters 30 --verify >> $R/auto_runs.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/auto_runs.log
done
tar czf $OUT/call_e.tgz -C $OUT r
timeout $((380 - SECONDS)) $B selftest --gpu --direction dgrad --verbose > $R/selftest_dgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_dgrad.log
gzip -f $R/selftest_dgrad.log
tar czf $OUT/call_e.tgz -C $OUT r && rm -rf $R
