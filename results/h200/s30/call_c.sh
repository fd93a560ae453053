# Session 30, call c (not run in session 30: no machine was lent; for the next session).
# Nsight Compute on the kernels behind the remaining gaps, to tell what bounds them:
# - the C/G 128 g2 layers that cuDNN still wins (backward data 27.2 vs 25.3 us, backward
#   weight 42.7 vs 42.0): their best members, and the halo tile for backward data. A static
#   count (session 30) puts the backward-data member's L2->SM traffic near 190 MB (dY read
#   through im2col 9 times, W once per M tile), which at the L2's bandwidth would be most of
#   its time: the memory-workload section says whether that is so;
# - the banded depthwise wgrad member of the 7x7 56² layer (38 us, roofline 0.21) after the
#   staging fix, and the CUDA-core forward member of the same layer (34 us).
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 400 bash results/h200/s30/call_c.sh; cd $OUT && tar czf c.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
i=0
while read -r p k; do
  i=$((i + 1))
  timeout 60 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
    --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats \
    -k "regex:^${k}\$" -c 1 $B run --backend cuda --problem $p --kernel $k --iters 1 --no-graph \
    > $R/ncu_$i.txt 2>&1
  echo "ncu $i $p $k rc=$? ${SECONDS}s" >> $R/progress.log
done <<'LIST'
dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 igemm_dgrad_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmma_gen
dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 igemm_dgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmma_halo
wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk7d_wgmmaws_gen
wgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1 direct_wgrad_bf16_t448x16x56_w4x1_s1_v8x2_gm1_sk75d_mma_gen
fwd_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1 direct_fwd_bf16_t448x32x56_w8x1_s1_v2x7_gm1_sk1d_simt_gen
LIST
true
