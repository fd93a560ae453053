# Session 20, call b: where the stride-2 grouped layers of call a lose to cuDNN (forward
# 0.74-0.93x, backward weight 0.70-0.81x): ncu of the pool's best tensor-core direct member
# on a stride-2 layer and on its stride-1 counterpart (shared-memory bank conflicts of the
# ldmatrix rows, which sit two pixel strides apart at stride 2).
#   tar xJf target/carry/bins.tar.xz && (timeout 300 bash results/h200/s20/call_b.sh; cd $OUT && tar czf b.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_ldsm.sum,dram__bytes_read.sum,dram__bytes_write.sum
while read p k; do
  echo "== $p $k" >> $R/ncu.txt
  timeout 50 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --metrics $M \
    -k "regex:${k:0:12}" -c 1 $B run --backend cuda --problem $p --kernel $k --iters 1 --no-graph >> $R/ncu.txt 2>&1
  echo "rc=$? ${SECONDS}s" >> $R/ncu.txt
done <<'PAIRS'
fwd_bf16_n64_g32_c512_k512_i28x28_f3x3_s2x2_p1x1_d1x1 direct_fwd_bf16_t128x64x16_w8x1_s1_v16x4_gm1_sk1d_mma_gen
fwd_bf16_n64_g32_c512_k512_i14x14_f3x3_s1x1_p1x1_d1x1 direct_fwd_bf16_t128x64x16_w8x1_s1_v16x4_gm1_sk1d_mma_gen
wgrad_bf16_n64_g32_c256_k256_i56x56_f3x3_s2x2_p1x1_d1x1 direct_wgrad_bf16_t112x32x16_w8x1_s2_v3x1_gm1_sk32d_mma_gen
wgrad_bf16_n64_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 direct_wgrad_bf16_t112x32x16_w8x1_s2_v3x1_gm1_sk47d_mma_gen
PAIRS
echo "ncu done ${SECONDS}s" >> $R/ncu.txt
