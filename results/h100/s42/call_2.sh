# Session 42, call 2: Nsight Compute on the two 7x7 depthwise prototypes of call 1, which
# verified but ran about 3x longer than the pool's CUDA-core members (forward 98.3 us for
# WR1 WC4 MCH1 against 33.4 us; backward weight 48.9 us against 37.6 us): where their time
# goes (stall reasons, L1 wavefronts of the 16-byte NHWC copies and stores, issue); and run 3
# of the wgmma C/G 8 prototype (run 2's wgmma were serialized by ptxas, C7520).
#   (timeout 240 bash results/h100/s42/call_2.sh; cd $OUT && tar czf c2.tgz p; cat p/wg.txt p/dw7.txt p/dw7w.txt p/summary.txt)
P=$OUT/p; mkdir -p $P
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $P/gpu.txt 2>&1
(timeout 200 nvcc -O3 -gencode arch=compute_90a,code=sm_90a -lineinfo -o /tmp/dw7 results/h100/s42/proto/dw7_mma.cu > $P/dw7_build.log 2>&1) &
(timeout 200 nvcc -O3 -gencode arch=compute_90a,code=sm_90a -lineinfo -o /tmp/dw7w results/h100/s42/proto/dw7_wgrad_mma.cu > $P/dw7w_build.log 2>&1) &
(timeout 200 nvcc -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/wg results/h100/s41/proto/wgmma_cg8.cu > $P/wg_build.log 2>&1) &
wait
timeout 40 /tmp/wg > $P/wg.txt 2>&1; grep -c C7520 $P/wg_build.log >> $P/wg.txt  # run 3: no branch around the wgmma
# Both prototypes now also run with the channel block fastest in a 1D grid (CBF1) and with 2 or 4
# groups of 8 channels per CTA (CGS, 32-64 contiguous bytes of a pixel per copy), and the
# forward one builds its fragment table by one pass (build_b).
timeout 60 /tmp/dw7 > $P/dw7.txt 2>&1
timeout 60 /tmp/dw7w > $P/dw7w.txt 2>&1
# Each variant launches its kernel 186 times (1 verified, 5 warm-up, 9 x 20 timed); the second
# of each file is profiled (forward WR1 WC4 MCH1 CBF1, backward weight TH56 TW16 4 warps CBF1).
timeout 60 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section SourceCounters --import-source yes -k regex:dw7I --launch-skip 186 -c 1 -o $P/ncu_dw7 /tmp/dw7 > $P/ncu_dw7.log 2>&1
timeout 50 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section SourceCounters --import-source yes -k regex:dw7w --launch-skip 186 -c 1 -o $P/ncu_dw7w /tmp/dw7w > $P/ncu_dw7w.log 2>&1
for f in dw7 dw7w; do
  ncu --import $P/ncu_$f.ncu-rep --page details > $P/ncu_$f.txt 2>&1
  ncu --import $P/ncu_$f.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $P/src_$f.csv.gz
  { echo "== $f"; grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Executed Ipc A|Issue Slots Busy|L1/TEX Hit|Mem Busy|Max Bandwidth|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|Block Limit|Stall|Warp Cycles Per Issued|One or More Eligible|Shared Memory Configuration|Bank|wavefront|Excessive" $P/ncu_$f.txt | head -60; } >> $P/summary.txt
done
