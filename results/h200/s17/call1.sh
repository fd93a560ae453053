# Session 17, call 1 (carry target/lean/gconv, the binary of branch wip/lean-loaders 33465e0):
# the correctness of the leaner igemm loaders before any timing: the GPU selftest of the
# backward-data and forward pools (every member, igemm and direct: the shared cp.async
# changed), compute-sanitizer memcheck on igemm members with zero-filled (skipped) copies
# whose addresses are no longer clamped, and session 15's C/G 128 g2 backward-data sweep.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
L=target/lean/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
timeout 200 $L selftest --gpu --direction dgrad > $R/selftest_dgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_dgrad.log
timeout 200 $L selftest --gpu --direction fwd > $R/selftest_fwd.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_fwd.log
CS=/usr/local/cuda/bin/compute-sanitizer
for pk in "dgrad_bf16_n3_g2_c96_k64_i15x13_f3x3_s2x2_p1x1_d1x1 igemm_dgrad_bf16_t64x64x32_w2x2_s4_v8x8_gm1_sk1d_mma_gen" \
          "dgrad_bf16_n3_g2_c96_k64_i15x13_f3x3_s2x2_p1x1_d1x1 igemm_dgrad_bf16_t128x64x64_w8x1_s5_v8x8_gm1_sk1d_wgmma_gen" \
          "dgrad_f16_n2_g8_c64_k32_i9x11_f3x3_s1x1_p2x2_d2x2 igemm_dgrad_f16_t64x64x16_w2x2_s5_v8x8_gm1_sk1d_mma_gen" \
          "dgrad_bf16_n2_g4_c32_k48_i5x9x7_f3x3x3_s2x2x2_p1x1x1_d1x1x1 igemm_dgrad_bf16_t64x64x16_w2x2_s5_v8x8_gm1_sk1d_mma_gen" \
          "fwd_bf16_n3_g2_c96_k64_i15x13_f3x3_s2x2_p1x1_d1x1 igemm_fwd_bf16_t128x16x32_w4x1_s4_v8x8_gm1_sk1d_mma_gen" \
          "fwd_bf16_n3_g2_c96_k64_i15x13_f3x3_s2x2_p1x1_d1x1 igemm_fwd_bf16_t64x64x32_w2x2_s4_v8x8_gm1_sk1d_mma_gen"; do
  set -- $pk
  echo "== $1 $2" >> $R/memcheck.log
  timeout 40 $CS --tool memcheck --error-exitcode 9 $L run --backend cuda --problem $1 --kernel $2 --iters 1 --no-graph --verify >> $R/memcheck.log 2>&1; echo "rc=$?" >> $R/memcheck.log
done
echo "memcheck done ${SECONDS}s" >> $R/memcheck.log
timeout 100 $L sweep --variant bwd_data --problems results/h200/s15/dgrad_cg128.txt --config configs/traits/bwd_data_bf16.json --arch sm_90a --filter "group_merge == 1 && fast_path == general && tile_m <= 128 && tile_n >= 64" --vs cudnn --output $R/dgrad_cg128_mma.csv --batch-size 200 --workers 16 > $R/dgrad_cg128_mma.log 2>&1
$L report $R/dgrad_cg128_mma.csv > $R/dgrad_cg128_mma.report 2>&1
echo "end ${SECONDS}s"
tail -n 3 $R/selftest_*.log; grep -E "^==|rc=|ERROR SUMMARY" $R/memcheck.log; head -30 $R/dgrad_cg128_mma.report
gzip -f $R/*.messages.jsonl 2>/dev/null
tar czf $OUT/call1.tgz -C $OUT r
