# The first device call of the next session (about 9 minutes; carry target/release/gconv),
# after adding to the bf16/f16 backward-weight pool (igemm/pool.rs, wgrad_pool) the members
# session 14 measured but could not tune for lack of device time:
#   igemm_wgrad_*_t128x64x64_w4x1_s4_v8x8_gm1_sk0d_wgmmaws_gen   (unseen C/G 128 g7 stride 2:
#     12.9 µs against the pool's 16.2, results/h200/s14/call7)
#   direct_wgrad_*_t448x16x56_w4x1_s1_v8x2_gm1_sk0d_mma_gen      (the pipelined banded member:
#     7x7 56² 39.3 µs against 43.4, results/h200/s13/call5)
# and retraining the model with results/h200/s14/call7/ws_cg32.csv.gz added (models/h200/README.md).
# A changed pool hash makes the shipped backward-weight decisions stale: tune again in the
# same lease, copy r/decisions.json to models/h200/decisions.json, rebuild.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
timeout 60 $B selftest --gpu --direction wgrad --kernels t128x64x64_w4x1_s4_v8x8_gm1 > $R/selftest_new1.log 2>&1; echo "rc=$?" >> $R/selftest_new1.log
timeout 60 $B selftest --gpu --direction wgrad --kernels _v8x2_ > $R/selftest_new2.log 2>&1; echo "rc=$?" >> $R/selftest_new2.log
cp models/h200/decisions.json $R/decisions.json
timeout 120 $B tune --problems model_zoo_wgrad --top 5 --vs cudnn --decisions $R/decisions.json --output $R/tune_wgrad.csv --batch-size 200 > $R/tune_wgrad.log 2>&1
timeout 170 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/zoo_wgrad.csv --batch-size 200 --workers 16 > $R/zoo_wgrad.log 2>&1
timeout 120 $B bench --problems configs/problems/wgrad_unseen.txt --direction wgrad --vs cudnn --output $R/unseen_wgrad.csv --batch-size 200 --workers 16 > $R/unseen_wgrad.log 2>&1
tail -n 2 $R/selftest_new*.log; grep -h "geomean\|kernels alone" $R/*.log
tar czf $OUT/next.tgz -C $OUT r
