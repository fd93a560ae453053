# Session 44, call 4 (any H100/H200): the banded tensor-core backward-weight kernels with one
# channel per warp (configs/traits/bwd_weight_banded_bf16.json, tile_n 8, 8 warps, split-K left
# to the rule) on every large-filter problem and the zoo's depthwise backward-weight keys
# (banded_n8_set.txt): the rows a pool member of that shape needs before it can be added (call
# 3: 2.4-3.0x the pool at 25x25/31x31 on 28^2 and 56^2). Compiled on the device.
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 280 bash results/h200/s44/call_4.sh; cd $OUT && tar czf c4.tgz r; cat r/gpu.txt r/progress.log; tail -4 r/banded_n8.log)
source results/h100/s35/prelude.sh
timeout $(( 260 - SECONDS )) $B sweep --variant bwd_weight --problems results/h200/s44/banded_n8_set.txt \
  --config configs/traits/bwd_weight_banded_bf16.json --filter "split_k == 0 && tile_n == 8 && warps_m == 8" \
  --output $R/banded_n8.csv --batch-size 200 --workers 16 > $R/banded_n8.log 2>&1; st sweep banded n8
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
