export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
timeout 180 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/zoo_wgrad.csv --batch-size 200 --workers 16 > $R/zoo_wgrad.log 2>&1
grep geomean $R/zoo_wgrad.log
timeout 160 $B selftest --gpu --direction wgrad > $R/selftest_wgrad.log 2>&1; tail -1 $R/selftest_wgrad.log
timeout 90 $B bench --problems configs/problems/wgrad_unseen.txt --direction wgrad --vs cudnn --output $R/unseen_wgrad.csv --batch-size 200 --workers 16 > $R/unseen_wgrad.log 2>&1
grep geomean $R/unseen_wgrad.log
tar czf $OUT/call4.tgz -C $OUT r
