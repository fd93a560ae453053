# Session 37, call 1: the tensor-core stride-phase kernel's trait space
# (configs/traits/bwd_data_direct_mma_phases_bf16.json, filtered) over the real client's 7 strided
# backward-data layers with cuDNN; Nsight Compute on zoo keys where issues #12 and #13 still fall
# short (three of session 35's `call_d.sh` list, never run, and the real client's G 49 stride-2
# backward-weight layer, the one key slower than cuDNN), each kernel verified and timed by `gconv
# run` first; then the real client's backward data over the whole pool with cuDNN.
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 575 bash results/h100/s37/call_1.sh; cd $OUT && tar czf c1.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
timeout 300 $B sweep --variant dgrad --problems configs/problems/rc_dgrad_strided.txt \
  --config configs/traits/bwd_data_direct_mma_phases_bf16.json --filter "tile_n <= 64 && vec_b >= 2 && warps_m >= 4 && vec_a >= 16" \
  --vs cudnn --output $R/sweep_phases.csv --batch-size 200 --workers 16 > $R/sweep_phases.log 2>&1; st sweep phases
i=0
while read -r kernel problem; do
  i=$((i + 1))
  timeout 40 $B run --backend cuda --problem "$problem" --kernel "$kernel" --verify --iters 50 > $R/run_$i.log 2>&1; st run $i $kernel
  timeout 45 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats \
    -k "regex:${kernel:0:12}" -c 1 $B run --backend cuda --problem "$problem" --kernel "$kernel" --iters 1 --no-graph \
    > $R/ncu_$i.txt 2>&1; st ncu $i
done <<'LIST'
direct_dgrad_bf16_t196x32x14_w7x1_s2_v2x7_gm1_sk1d_simt_gen dgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1
direct_dgrad_bf16_t64x32x16_w8x1_s3_v16x2_gm1_sk1d_mma_gen dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1
direct_wgrad_bf16_t448x16x56_w4x1_s1_v8x2_gm1_sk75d_mma_gen wgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1
direct_wgrad_bf16_t64x32x8_w8x1_s3_v3x1_gm1_sk10d_mma_gen wgrad_bf16_n64_g49_c784_k784_i14x14_f3x3_s2x2_p1x1_d1x1
LIST
timeout $(( 565 - SECONDS )) $B bench --problems results/h200/s20/rc_grouped_dgrad.txt --direction dgrad --vs cudnn --output $R/rc_dgrad.csv --batch-size 200 --workers 16 > $R/rc_dgrad.log 2>&1; st bench rc dgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
