# Session 29, call 5 (not run: for the next session): the streaming depthwise wgrad kernel's
# cluster split at 2, 4, 8 and 16 slabs (16: a non-portable cluster, new since call 1) with the
# spread scheduling policy, every config of configs/traits/bwd_weight_stream_cluster_bf16.json
# (288: each tile as d and as c) over the zoo's 16 depthwise wgrad keys, every row verified;
# then the pool and cuDNN on the same keys in the same run, so that the best c of each key can
# be set against the best pool member (call 1 found c at 8 slabs ahead on 3 keys).
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s29/call_5.sh; cd $OUT && tar czf c5.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
timeout 330 $B sweep --variant bwd_weight --arch sm_90 --problems results/h200/s28/zoo_dw_wgrad.txt \
  --config configs/traits/bwd_weight_stream_cluster_bf16.json --output $R/sweep_cluster16.csv \
  > $R/sweep_cluster16.log 2>&1
echo "sweep rc=$? ${SECONDS}s" >> $R/progress.log
timeout 200 $B bench --problems results/h200/s28/zoo_dw_wgrad.txt --direction wgrad --vs cudnn \
  --output $R/bench_dw.csv --batch-size 200 --workers 16 > $R/bench_dw.log 2>&1
echo "bench rc=$? ${SECONDS}s" >> $R/progress.log
gzip -f $R/*.csv $R/*.messages.jsonl 2>/dev/null; true
