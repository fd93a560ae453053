# Session 13, call 4 (the last of the session's device time): the tuned wgrad decisions for the
# pool with the two banded members (the bf16 wgrad pool changed, so session 12's wgrad
# decisions no longer apply; the retrained model ranks the banded members), then the zoo wgrad
# bench against cuDNN (every pool member, verified).
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
cp models/h200/decisions.json $R/decisions.json
timeout 140 $B tune --problems model_zoo_wgrad --top 5 --vs cudnn --decisions $R/decisions.json --output $R/tune_wgrad.csv > $R/tune_wgrad.log 2>&1
tar czf $OUT/call4a.tgz -C $OUT r
timeout 150 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/zoo_wgrad.csv --batch-size 200 --workers 16 > $R/zoo_wgrad.log 2>&1
tail -n 3 $R/tune_wgrad.log; grep geomean $R/zoo_wgrad.log
tar czf $OUT/call4.tgz -C $OUT r
