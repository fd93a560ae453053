# Session 43, call 2 (any GPU; the name says which): session 42's prepared call 5
# (results/h100/s42/call_5.sh: the pipelined persistent 7x7 depthwise backward-weight prototype
# dw7w_pipe and the forward prototype with hardware bf16x2 rounding, the first pipe variant
# profiled), with the pool's `auto` on the zoo's four 7x7 backward-weight keys in the same lease
# (`run --kernel auto --verify`), so the prototype is compared on one GPU; and this session's
# 3D C/G 8 prototype (proto/cg8_ldsm.cu: a fresh ldmatrix.x4 per m16n8k16, weights in registers)
# against the pool on the zoo's 3D C/G 8 backward-data key (bench with cuDNN) and its forward key
# (`run --kernel auto`).
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 450 bash results/h100/s43/call_2.sh; cd $OUT && tar czf c2.tgz p r; cat p/gpu.txt r/progress.log r/cg8.txt; grep -E 'registers|spill' r/cg8_build.log; tail -3 r/bench_cg8.report.txt; grep -E 'median|kernel ' r/auto_cg8_fwd.txt; cat p/dw7w.txt p/dw7.txt; grep -E '^== |median|kernel ' r/auto_dw7w.txt; grep -E 'Duration|Eligible Warps|Warp Cycles Per Issued|Achieved Occ|DRAM Through' p/ncu_pipe.txt)
source results/h100/s35/prelude.sh
$B problems model_zoo_wgrad 2>/dev/null | grep _f7x7_ > $R/dw7_wgrad.txt
for k in $(cat $R/dw7_wgrad.txt); do
  echo "== $k" >> $R/auto_dw7w.txt; timeout 20 $B run --problem $k --backend cuda --kernel auto --verify --iters 50 >> $R/auto_dw7w.txt 2>&1
done; st auto dw7 wgrad
(timeout 120 nvcc -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -I results/h100/s42/proto -o /tmp/cg8 results/h100/s43/proto/cg8_ldsm.cu > $R/cg8_build.log 2>&1) &
K3=dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1
echo $K3 > $R/cg8_key.txt
timeout 100 $B bench --problems $R/cg8_key.txt --direction dgrad --vs cudnn --output $R/bench_cg8.csv --workers 16 > $R/bench_cg8.log 2>&1; st bench cg8 dgrad
$B report $R/bench_cg8.csv > $R/bench_cg8.report.txt 2>&1
timeout 30 $B run --problem ${K3/dgrad_/fwd_} --backend cuda --kernel auto --verify --iters 50 > $R/auto_cg8_fwd.txt 2>&1
wait
timeout 60 /tmp/cg8 > $R/cg8.txt 2>&1; st cg8 proto
timeout 200 bash results/h100/s42/call_5.sh; st call_5
