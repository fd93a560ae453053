# For the next session (not run in session 18: no device could be started for it): re-tune the
# zoo decisions for the model of branch wip/select-top5 (its feature hash keys the decision
# cache, so the shipped 81 entries are stale under it), every direction, cuDNN timed in the
# same run so that the dispatcher may answer "the vendor". Merge the branch first (main
# reverted the merge in 6231c9a: `git revert 6231c9a`), then
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 560 bash results/h200/s18/next_call.sh; ...)
# and copy r/decisions.json to models/h200/decisions.json (about 4-6 minutes).
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
cp models/h200/decisions.json $R/decisions.json
for d in wgrad dgrad fwd; do
  timeout 170 $B tune --problems model_zoo_$d --top 5 --vs cudnn --decisions $R/decisions.json --output $R/tune_$d.csv --batch-size 200 > $R/tune_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/tune_$d.log
  tar czf $OUT/call3.tgz -C $OUT r  # what is done so far, should the lease end first
done
grep -h "kernels alone\|dispatcher\|stale\|rc=" $R/tune_*.log
gzip -f $R/*.messages.jsonl 2>/dev/null
tar czf $OUT/call3.tgz -C $OUT r && rm -rf $R
