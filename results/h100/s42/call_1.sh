# Session 42, call 1 (any H100/H200): two standalone prototypes built with nvcc and verified
# against naive kernels before they are timed, the pool's figures for the same layers in the
# same lease, and on an H200 session 41's H200 call first.
#  1. results/h200/s41/call_3.sh if the GPU is an H200 (zoo wgrad + dgrad benches with cuDNN,
#     PyTorch's best layout, `auto` verified on every wgrad key); the prototypes build meanwhile;
#  2. results/h100/s42/proto/dw7_mma.cu: 7x7 depthwise on mma.sync straight from an NHWC tile
#     (the zoo's four 7x7 depthwise shapes, seven tilings);
#     and results/h100/s42/proto/dw7_wgrad_mma.cu, their backward weight (four shapes);
#  3. results/h100/s41/proto/wgmma_cg8.cu: its run 2 (seven batched variants);
#  4. the pool on the same layers: `bench --vs cudnn` over the four 7x7 depthwise backward-data
#     keys (not on an H200: step 1 benches them) and `run --kernel auto --verify` on them and
#     on their forward and backward-weight keys.
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz", "target/torch_baseline.py"]
#   tar xJf target/carry/bins.tar.xz && (timeout 575 bash results/h100/s42/call_1.sh; cd $OUT && tar czf c1.tgz r p; cat p/*.txt r/progress.log; grep geomean r/bench_*.report.txt)
T0=$(date +%s); left() { echo $(( $1 - ($(date +%s) - T0) )); }
P=$OUT/p; mkdir -p $P
(timeout 200 nvcc -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/dw7 results/h100/s42/proto/dw7_mma.cu > $P/dw7_build.log 2>&1; echo "dw7 build rc=$?" >> $P/dw7.txt) &
(timeout 200 nvcc -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/dw7w results/h100/s42/proto/dw7_wgrad_mma.cu > $P/dw7w_build.log 2>&1; echo "dw7w build rc=$?" >> $P/dw7w.txt) &
(timeout 200 nvcc -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/wg results/h100/s41/proto/wgmma_cg8.cu > $P/wg_build.log 2>&1; echo "wg build rc=$?" >> $P/wg.txt) &
source results/h100/s35/prelude.sh
H200=0; grep -q H200 $R/gpu.txt && H200=1
[ $H200 = 1 ] && timeout 330 bash results/h200/s41/call_3.sh
wait
timeout 60 /tmp/dw7 >> $P/dw7.txt 2>&1; echo "dw7 run rc=$? at $(left 0)" >> $P/dw7.txt
timeout 60 /tmp/dw7w >> $P/dw7w.txt 2>&1; echo "dw7w run rc=$? at $(left 0)" >> $P/dw7w.txt
timeout 40 /tmp/wg >> $P/wg.txt 2>&1; echo "wg run rc=$? at $(left 0)" >> $P/wg.txt
for d in dgrad fwd wgrad; do $B problems model_zoo_$d 2>/dev/null | grep _f7x7_ > $R/dw7_$d.txt; done
if [ $H200 = 0 ]; then
  timeout $(left 470) $B bench --problems $R/dw7_dgrad.txt --direction dgrad --vs cudnn --output $R/bench_dw7_dgrad.csv --workers 16 > $R/bench_dw7_dgrad.log 2>&1; st bench dw7 dgrad
  $B report $R/bench_dw7_dgrad.csv > $P/bench_dw7_dgrad.report.txt 2>&1
fi
for k in $(cat $R/dw7_fwd.txt $R/dw7_dgrad.txt $R/dw7_wgrad.txt); do
  [ $(left 560) -gt 15 ] || break
  echo "== $k" >> $P/auto_dw7.txt; timeout 15 $B run --problem $k --backend cuda --kernel auto --verify --iters 20 >> $P/auto_dw7.txt 2>&1
done; st auto dw7
gzip -f $R/*.csv 2>/dev/null; true
