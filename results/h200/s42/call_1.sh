# Session 42, call 1: run 2 of the wgmma C/G 8 prototype (results/h100/s41/proto/wgmma_cg8.cu,
# seven batched variants, verified before timed) on whatever GPU comes, then session 41's
# H200 call (results/h200/s41/call_3.sh: zoo wgrad + dgrad benches with cuDNN, PyTorch's best
# layout, `auto` verified on every wgrad key), which stops at once on any GPU but an H200.
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz", "target/torch_baseline.py"]
#   tar xJf target/carry/bins.tar.xz && (timeout 560 bash results/h200/s42/call_1.sh; cd $OUT && tar czf c1.tgz r proto; cat proto/run.txt r/gpu.txt r/progress.log; grep geomean r/bench_*.report.txt)
mkdir -p $OUT/proto
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/proto/gpu.txt 2>&1
timeout 120 nvcc -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/wg results/h100/s41/proto/wgmma_cg8.cu > $OUT/proto/build.txt 2>&1
echo "build rc=$?" >> $OUT/proto/run.txt
timeout 60 /tmp/wg >> $OUT/proto/run.txt 2>&1
echo "run rc=$?" >> $OUT/proto/run.txt
timeout $(( 555 - SECONDS )) bash results/h200/s41/call_3.sh
