# Session 14, call 1 (about 9.5 minutes; carry target/release/gconv and target/wheels): what
# session 13 could not fit, and the zoo dgrad bench (last run in session 6). One tarball out.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
# 1. The GPU selftest of the wgrad pool with its two banded members (never selftested: only
#    verified in the sweep and the bench), with the determinism repeat.
timeout 170 $B selftest --gpu --direction wgrad > $R/selftest_wgrad.log 2>&1; echo "rc=$?" >> $R/selftest_wgrad.log
# 2. The zoo wgrad bench to the end (session 13's was cut on the two 3D layers).
timeout 200 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/zoo_wgrad.csv --batch-size 200 --workers 16 > $R/zoo_wgrad.log 2>&1
# 3. The unseen wgrad layers with session 13's model as auto.
timeout 90 $B bench --problems configs/problems/wgrad_unseen.txt --direction wgrad --vs cudnn --output $R/unseen_wgrad.csv --batch-size 200 --workers 16 > $R/unseen_wgrad.log 2>&1
# 4. The zoo dgrad bench (session 6's figures are the last).
timeout 100 $B bench --problems model_zoo --direction dgrad --vs cudnn --output $R/zoo_dgrad.csv --batch-size 200 --workers 16 > $R/zoo_dgrad.log 2>&1
tail -n 2 $R/selftest_wgrad.log; grep -h geomean $R/*.log
tar czf $OUT/next.tgz -C $OUT r
