# Session 42, call 3: both 7x7 depthwise prototypes again after call 2's profile of the
# backward-weight one (16.3 M warp instructions, HMMA 4.7 %, IMAD + LOP3 + LEA 58 %: the
# staging's division and address arithmetic per 16-byte copy): each thread now keeps one
# (column, channel group) and walks the staged rows with fixed increments.
#   (timeout 150 bash results/h100/s42/call_3.sh; cd $OUT && tar czf c3.tgz p; cat p/gpu.txt p/dw7w.txt p/dw7.txt)
P=$OUT/p; mkdir -p $P
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $P/gpu.txt 2>&1
(timeout 100 nvcc -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/dw7 results/h100/s42/proto/dw7_mma.cu > $P/dw7_build.log 2>&1) &
(timeout 100 nvcc -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/dw7w results/h100/s42/proto/dw7_wgrad_mma.cu > $P/dw7w_build.log 2>&1) &
wait
timeout 30 /tmp/dw7w > $P/dw7w.txt 2>&1
timeout 30 /tmp/dw7 > $P/dw7.txt 2>&1
true
