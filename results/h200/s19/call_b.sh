# Session 19, the second call (after call_a.sh): branch wip/cluster-reduce's wgrad selftest
# (every pool member on the branch's launch path), then session 18's call 3 (the C/G 32
# direct tensor-core wgrad kernels at fixed split degrees 1-16).
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s19/call_b.sh; ...)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; C=target/cluster-reduce/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s18
SECONDS=0
timeout 300 $C selftest --gpu --direction wgrad > $R/selftest_wgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_wgrad.log
tar czf $OUT/call_b.tgz -C $OUT r
# Where the three keys furthest from issue #12/#13's targets spend their time (ncu sections of
# the best kernel of session 18's zoo benches): 3D C/G 8 dgrad (0.103 of the roofline, 1.14x
# cuDNN), 7x7 depthwise dgrad at 56x56 (0.247) and wgrad (0.206).
while read p k; do
  echo "== $p $k" >> $R/ncu.txt
  timeout 40 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats \
    -k "regex:${k:0:12}" -c 1 $B run --backend cuda --problem $p --kernel $k --iters 1 --no-graph >> $R/ncu.txt 2>&1
done <<'PAIRS'
dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1 direct_dgrad_bf16_t196x56x14_w8x1_s2_v64x1_gm1_sk1d_mma_gen
dgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1 direct_dgrad_bf16_t448x32x56_w8x1_s1_v2x7_gm1_sk1d_simt_gen
wgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1 direct_wgrad_bf16_t448x16x56_w4x1_s1_v8x2_gm1_sk75d_mma_gen
PAIRS
echo "ncu done ${SECONDS}s" >> $R/ncu.txt
tar czf $OUT/call_b.tgz -C $OUT r
F='(tile_m == 64 && tile_k == 8 && tile_n == 32 && warps_m == 8 && vec_a == 3) || (tile_m == 112 && tile_k == 16 && tile_n == 32 && warps_m == 8 && vec_a == 3) || (tile_m == 128 && tile_n == 16 && tile_k == 16 && warps_m == 4 && vec_a == 2)'
left=$((575 - SECONDS))
[ $left -gt 40 ] && timeout $left $B sweep --variant bwd_weight --problems $S/wgrad_cg32.txt --config $S/wgrad_mma_split.json --filter "$F" --vs cudnn --output $R/cg32_split.csv --batch-size 200 --workers 16 > $R/cg32_split.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/cg32_split.log
gzip -f $R/*.messages.jsonl 2>/dev/null
tar czf $OUT/call_b.tgz -C $OUT r && rm -rf $R
