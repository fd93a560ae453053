# Session 43, call 2 (any GPU; the name says which): session 42's prepared call 5
# (results/h100/s42/call_5.sh: the pipelined persistent 7x7 depthwise backward-weight prototype
# dw7w_pipe and the forward prototype with hardware bf16x2 rounding, the first pipe variant
# profiled), with the pool's `auto` on the zoo's four 7x7 backward-weight keys in the same lease
# (`run --kernel auto --verify`), so the prototype is compared on one GPU.
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 280 bash results/h200/s43/call_2.sh; cd $OUT && tar czf c2.tgz p r; cat p/gpu.txt p/dw7w.txt p/dw7.txt; grep -E '^== |median|kernel ' r/auto_dw7w.txt; grep -E 'Duration|Eligible Warps|Warp Cycles Per Issued|Achieved Occ|DRAM Through' p/ncu_pipe.txt)
source results/h100/s35/prelude.sh
$B problems model_zoo_wgrad 2>/dev/null | grep _f7x7_ > $R/dw7_wgrad.txt
for k in $(cat $R/dw7_wgrad.txt); do
  echo "== $k" >> $R/auto_dw7w.txt; timeout 20 $B run --problem $k --backend cuda --kernel auto --verify --iters 50 >> $R/auto_dw7w.txt 2>&1
done; st auto dw7 wgrad
timeout 240 bash results/h100/s42/call_5.sh; st call_5
