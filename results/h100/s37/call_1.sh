# Session 37, call 1: the tensor-core stride-phase kernel's trait space
# (configs/traits/bwd_data_direct_mma_phases_bf16.json, filtered) over the real client's 7 strided
# backward-data layers with cuDNN; Nsight Compute on three zoo keys where issues #12 and #13
# still fall short (session 35's `call_d.sh` list, never run), each kernel verified and timed by
# `gconv run` first; then the whole backward-data pool and cuDNN over this session's 3D strided
# grid (`s3d_grid.py`: training rows of the stride-phase kernel for the selection model).
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 575 bash results/h100/s37/call_1.sh; cd $OUT && tar czf c1.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
timeout 250 $B sweep --variant dgrad --problems configs/problems/rc_dgrad_strided.txt \
  --config configs/traits/bwd_data_direct_mma_phases_bf16.json --filter "tile_n <= 64 && vec_b >= 2 && warps_m >= 4 && vec_a >= 16" \
  --vs cudnn --output $R/sweep_phases.csv --batch-size 200 --workers 16 > $R/sweep_phases.log 2>&1; st sweep phases
i=0
while read -r kernel problem; do
  i=$((i + 1))
  timeout 30 $B run --backend cuda --problem "$problem" --kernel "$kernel" --verify --iters 50 > $R/run_$i.log 2>&1; st run $i $kernel
  timeout 40 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats \
    -k "regex:${kernel:0:12}" -c 1 $B run --backend cuda --problem "$problem" --kernel "$kernel" --iters 1 --no-graph \
    > $R/ncu_$i.txt 2>&1; st ncu $i
done <<'LIST'
direct_dgrad_bf16_t196x32x14_w7x1_s2_v2x7_gm1_sk1d_simt_gen dgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1
direct_dgrad_bf16_t64x32x16_w8x1_s3_v16x2_gm1_sk1d_mma_gen dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1
direct_wgrad_bf16_t448x16x56_w4x1_s1_v8x2_gm1_sk75d_mma_gen wgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1
LIST
timeout $(( 560 - SECONDS )) $B bench --problems results/h100/s37/s3d_grid_dgrad.txt --direction dgrad --vs cudnn --output $R/s3d_grid_dgrad.csv --batch-size 200 --workers 16 > $R/s3d_grid_dgrad.log 2>&1; st bench s3d grid dgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
