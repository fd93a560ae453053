# Session 35 (no device was lent; for the next session), call d: Nsight Compute on the keys
# where issues #12 and #13 still fall short, with the fastest members of session 34's benches
# (`results/h100/s34/call_c/report_dgrad.txt`, `call_e/report_wgrad.txt`), to say what bounds
# them: the 7x7 depthwise 56^2 layer in backward data (CUDA-core direct tile, 0.346 of the
# H100's roofline; 0.40 asked) and backward weight (banded tensor-core slab kernel, 0.306), and
# the 3D C/G 8 layer in backward data (depth-streaming tensor-core direct tile, 0.234 of the
# roofline, 1.90x cuDNN; 4x asked) and backward weight (0.198). Each kernel is verified and
# timed by `gconv run` first (the same binary and cache as call a).
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s35/call_d.sh; cd $OUT && tar czf d.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
i=0
while read -r kernel problem; do
  i=$((i + 1))
  timeout 60 $B run --backend cuda --problem "$problem" --kernel "$kernel" --verify --iters 50 > $R/run_$i.log 2>&1; st run $i $kernel
  timeout 100 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats \
    -k "regex:${kernel:0:12}" -c 1 $B run --backend cuda --problem "$problem" --kernel "$kernel" --iters 1 --no-graph \
    > $R/ncu_$i.txt 2>&1; st ncu $i
done <<'LIST'
direct_dgrad_bf16_t448x32x56_w8x1_s1_v2x7_gm1_sk1d_simt_gen dgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1
direct_wgrad_bf16_t448x16x56_w4x1_s1_v8x2_gm1_sk75d_mma_gen wgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1
direct_dgrad_bf16_t64x32x16_w8x1_s3_v16x2_gm1_sk1d_mma_gen dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1
direct_wgrad_bf16_t112x24x16_w8x1_s2_v2x1_gm1_sk24d_mma_gen wgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1
LIST
true
