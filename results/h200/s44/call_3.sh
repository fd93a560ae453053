# Session 44, call 3 (any H100/H200): the banded tensor-core backward-weight kernels of
# configs/traits/bwd_weight_banded_bf16.json (split-K left to the rule) on the 25x25 and 31x31
# problems of the large-filter set, where the pool's banded members are refused (accumulator
# limit) and only the CUDA-core member runs (call 2): what a banded member with fewer channels
# per warp would give. Kernels compiled here (`gconv cache build --problems
# results/h200/s44/large_filter_25_31.txt --config configs/traits/bwd_weight_banded_bf16.json
# --filter "split_k == 0"`, 708 modules) and carried as target/carry/gc_b.tar.xz.
# carry ["target/carry/bins.tar.xz", "target/carry/gc_b.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && tar xJf target/carry/gc_b.tar.xz -C /tmp && (timeout 300 bash results/h200/s44/call_3.sh; cd $OUT && tar czf c3.tgz r; cat r/gpu.txt r/progress.log; tail -4 r/banded.log)
source results/h100/s35/prelude.sh
timeout $(( 280 - SECONDS )) $B sweep --variant bwd_weight --problems results/h200/s44/large_filter_25_31.txt \
  --config configs/traits/bwd_weight_banded_bf16.json --filter "split_k == 0" \
  --output $R/banded.csv --batch-size 200 --workers 16 > $R/banded.log 2>&1; st sweep banded 25-31
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
