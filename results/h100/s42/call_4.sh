# Session 42, call 4: the forward 7x7 prototype's profile that call 2 missed (its -k filter
# matched no kernel): the second variant (WR1 WC4 MCH1 CBF1 CGS1, 108 us in call 3).
#   (timeout 150 bash results/h100/s42/call_4.sh; cd $OUT && tar czf c4.tgz p; cat p/summary.txt)
P=$OUT/p; mkdir -p $P
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $P/gpu.txt 2>&1
timeout 80 nvcc -O3 -gencode arch=compute_90a,code=sm_90a -lineinfo -o /tmp/dw7 results/h100/s42/proto/dw7_mma.cu > $P/dw7_build.log 2>&1
timeout 60 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section SourceCounters --import-source yes -k regex:^dw7$ --launch-skip 186 -c 1 -o $P/ncu_dw7 /tmp/dw7 > $P/ncu_dw7.log 2>&1
ncu --import $P/ncu_dw7.ncu-rep --page details > $P/ncu_dw7.txt 2>&1
ncu --import $P/ncu_dw7.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $P/src_dw7.csv.gz
grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Eligible|Warp Cycles Per Issued|DRAM Throughput|Memory Throughput|L2 Hit|L1/TEX Hit|Block Limit|excessive|Stall" $P/ncu_dw7.txt | head -40 > $P/summary.txt
tail -2 $P/ncu_dw7.log >> $P/summary.txt
