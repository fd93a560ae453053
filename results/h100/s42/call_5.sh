# Session 42, call 5 (prepared; not run: the session's device time was spent): the 7x7
# depthwise backward-weight prototype's pipelined, persistent kernel (dw7w_pipe: two stages,
# the next tile's copies in flight during the current tile's MMAs, one partial plane a CTA;
# both kernels now with the two-row m16n8k16 step and __byte_perm pairing),
# five tilings per shape, then the one-tile kernel of call 3 in the same run, against the
# pool's `auto` (37.8 / 20.8 / 15.0 / 8.5 us on an H100, call 1); and the forward prototype
# with the epilogue's rounding in one cvt.rn.bf16x2.f32 per pair and minimum blocks 1 in its
# launch bounds (call 4: software rounding in LOP3/IMAD, 96 registers and spills).
#   (timeout 240 bash results/h100/s42/call_5.sh; cd $OUT && tar czf c5.tgz p; cat p/gpu.txt p/dw7w.txt p/dw7.txt; grep -E 'Duration|Eligible Warps|Warp Cycles Per Issued|Achieved Occ|DRAM Through' p/ncu_pipe.txt)
P=$OUT/p; mkdir -p $P
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $P/gpu.txt 2>&1
(timeout 120 nvcc -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/dw7w results/h100/s42/proto/dw7_wgrad_mma.cu > $P/dw7w_build.log 2>&1) &
(timeout 120 nvcc -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/dw7 results/h100/s42/proto/dw7_mma.cu > $P/dw7_build.log 2>&1) &
wait
timeout 40 /tmp/dw7w > $P/dw7w.txt 2>&1
timeout 40 /tmp/dw7 > $P/dw7.txt 2>&1
# The first pipelined variant (56²: TH 28, TW 16, 4 warps), profiled.
timeout 60 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section SourceCounters --import-source yes -k regex:dw7w_pipe -c 1 -o $P/ncu_pipe /tmp/dw7w > $P/ncu_pipe.log 2>&1
ncu --import $P/ncu_pipe.ncu-rep --page details > $P/ncu_pipe.txt 2>&1
ncu --import $P/ncu_pipe.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $P/src_pipe.csv.gz
true
