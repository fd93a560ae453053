# Session 23, call f: what bounds the backward-data keys that miss issue #12's targets (the
# 3D C/G 8 layer at 1.63x cuDNN, target 4x; 7x7 depthwise at 0.25 of the roofline, target
# 0.40; C/G 128 g2 at 0.92x) and the real client's C/G 8 stride-1 forward layer (0.34 of the
# roofline): ncu sections of each one's fastest member in call d's bench.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 300 bash results/h200/s23/call_f.sh; cd $OUT && tar czf f.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SECONDS=0
prof() { # prof TAG PROBLEM KERNEL
  timeout 70 $NCU --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
    --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed_op_ldsm.sum,lts__t_bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    -k "regex:${3:0:12}" -c 1 $B run --backend cuda --problem $2 --kernel $3 --iters 1 --no-graph > $R/ncu_$1.txt 2>&1
  echo "$1 rc=$? ${SECONDS}s" >> $R/calls.log
}
prof dgrad3d dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1 direct_dgrad_bf16_t112x32x16_w8x1_s2_v8x4_gm1_sk1d_mma_gen
prof dgrad7x7 dgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1 direct_dgrad_bf16_t448x32x56_w8x1_s1_v2x7_gm1_sk1d_simt_gen
prof dgradcg128 dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 igemm_dgrad_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmma_gen
prof fwdcg8 fwd_bf16_n64_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 direct_fwd_bf16_t112x64x28_w8x1_s2_v8x4_gm1_sk1d_mma_gen
true
