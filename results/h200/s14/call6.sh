# Session 14, call 6 (about 3 minutes; carry target/release/gconv): the unseen backward layers
# with the pools and the model of call 5 (call 5's unseen bench was cut by its timeout):
# backward weight (configs/problems/wgrad_unseen.txt) and backward data (session 6's list).
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
timeout 120 $B bench --problems configs/problems/wgrad_unseen.txt --direction wgrad --vs cudnn --output $R/unseen_wgrad.csv --batch-size 200 --workers 16 > $R/unseen_wgrad.log 2>&1
timeout 90 $B bench --problems results/h200/s6/dgrad_unseen.txt --direction dgrad --vs cudnn --output $R/unseen_dgrad.csv --batch-size 200 --workers 16 > $R/unseen_dgrad.log 2>&1
grep -h "geomean" $R/*.log
tar czf $OUT/call6.tgz -C $OUT r
