# Session 19, call 4: main with the seven-feature model, its re-tuned decisions and the two
# 112-pixel persistent tensor-core members (direct pool, forward and backward data): the
# forward and backward-data zoo decisions re-tuned for the grown pools, then the GPU
# selftest of the two new members in both directions.
#   tar xJf target/carry/bins.tar.xz && (timeout 560 bash results/h200/s19/call_d.sh; ...)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
cp models/h200/decisions.json $R/decisions.json
for d in dgrad fwd; do
  timeout 200 $B tune --problems model_zoo_$d --top 5 --vs cudnn --decisions $R/decisions.json --output $R/tune_$d.csv --batch-size 200 > $R/tune_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/tune_$d.log
  tar czf $OUT/call_d.tgz -C $OUT r
done
grep -h "kernels alone\|dispatcher\|stale\|rc=" $R/tune_*.log
for d in dgrad fwd; do
  timeout 60 $B selftest --gpu --direction $d --kernels _s2_v8x4_ > $R/selftest_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_$d.log
done
gzip -f $R/*.messages.jsonl 2>/dev/null
tar czf $OUT/call_d.tgz -C $OUT r && rm -rf $R
