# Session 19, call 1 (one lease with call 2; binaries packed by
# `scripts/h200.sh wip/cluster-reduce wip/top5`, carry ["target/carry/bins.tar.xz"]):
# (a) re-tune the zoo decisions for branch wip/top5's model (main + the re-applied
#     select-top5 merge: seven plan features, --top-weight 2), every direction, cuDNN timed in
#     the same run; r/decisions.json becomes models/h200/decisions.json when it merges;
# (b) session 18's call 3: the direct tensor-core wgrad kernels that win the zoo's C/G 32
#     layers at fixed split-K degrees 1-16 (results/h200/s18/wgrad_mma_split.json).
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s19/call1.sh; ...)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
T=target/top5/gconv; B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s18
SECONDS=0
$T info > $R/info.txt 2>&1
cp models/h200/decisions.json $R/decisions.json
for d in wgrad dgrad fwd; do
  timeout 150 $T tune --problems model_zoo_$d --top 5 --vs cudnn --decisions $R/decisions.json --output $R/tune_$d.csv --batch-size 200 > $R/tune_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/tune_$d.log
  tar czf $OUT/call1.tgz -C $OUT r  # what is done so far, should the lease end first
done
grep -h "kernels alone\|dispatcher\|stale\|rc=" $R/tune_*.log
F='(tile_m == 64 && tile_k == 8 && tile_n == 32 && warps_m == 8 && vec_a == 3) || (tile_m == 112 && tile_k == 16 && tile_n == 32 && warps_m == 8 && vec_a == 3) || (tile_m == 128 && tile_n == 16 && tile_k == 16 && warps_m == 4 && vec_a == 2)'
left=$((575 - SECONDS))
[ $left -gt 40 ] && timeout $left $B sweep --variant bwd_weight --problems $S/wgrad_cg32.txt --config $S/wgrad_mma_split.json --filter "$F" --vs cudnn --output $R/cg32_split.csv --batch-size 200 --workers 16 > $R/cg32_split.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/cg32_split.log
gzip -f $R/*.messages.jsonl 2>/dev/null
tar czf $OUT/call1.tgz -C $OUT r && rm -rf $R
