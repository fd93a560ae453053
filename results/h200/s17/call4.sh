# Session 17, call 4 (carry target/release/gconv = 108cce4): where the igemm kernels of the
# zoo's C/G 128 g2 backward-data layer lose to cuDNN. Nsight Compute on gconv's mma.sync
# member of cuDNN's tile (64x128x64, 3 stages), gconv's best wgmma member (192x128x64, 4
# stages) and the kernel PyTorch's cuDNN runs for the same convolution (channels_last bf16).
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
P=dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis_Tables --section ComputeWorkloadAnalysis --section InstructionStats --section SourceCounters"
M="--metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_hmma.sum"
SECONDS=0
for K in igemm_dgrad_bf16_t64x128x64_w2x2_s3_v8x8_gm1_sk1d_mma_gen igemm_dgrad_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmma_gen; do
  timeout 100 ncu $S $M -k regex:igemm --launch-count 1 -o $R/$K $B run --backend cuda --problem $P --kernel $K --iters 1 --no-graph > $R/$K.log 2>&1
  echo "$K ${SECONDS}s"
done
timeout 120 ncu $S $M --nvtx --nvtx-include "prof/" -k regex:dgrad --launch-count 1 -o $R/cudnn python3 results/h200/s17/torch_dgrad.py > $R/cudnn.log 2>&1
echo "cudnn ${SECONDS}s"
python3 results/h200/s17/torch_dgrad.py >> $R/cudnn.log 2>&1
for f in $R/*.ncu-rep; do
  b=${f%.ncu-rep}
  timeout 30 ncu -i $f --page details > $b.details.txt 2>&1
  timeout 30 ncu -i $f --page source --csv --print-source sass > $b.source.csv 2>&1
done
rm -f $R/*.ncu-rep
grep -h "Duration\|Registers Per\|Achieved Occupancy\|Theoretical Occupancy\|Issue Slots Busy\|No Eligible\|Executed Ipc Active\|hmma\|bank_conflicts\|inst_executed.sum\|Kernel Name\|dgrad" $R/*.details.txt | head -80
tail -n 3 $R/cudnn.log
gzip -f $R/*.source.csv
tar czf $OUT/call4.tgz -C $OUT r && rm -rf $R
