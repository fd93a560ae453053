# Session 14, call 5 (about 8.5 minutes; carry target/release/gconv): the warp-specialised
# members in the backward pools (wgrad: 128x128 and 64x128 general, 64x128 pointwise; dgrad:
# 192x128), never selftested: the GPU selftest of those members, the tuned decisions of both
# backward directions again (their pool hashes changed), the zoo benches of both and the
# unseen wgrad bench, cuDNN in the same runs.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
timeout 60 $B selftest --gpu --kernels _wgmmaws_ > $R/selftest_ws.log 2>&1; echo "rc=$?" >> $R/selftest_ws.log
cp models/h200/decisions.json $R/decisions.json
timeout 110 $B tune --problems model_zoo_wgrad --top 5 --vs cudnn --decisions $R/decisions.json --output $R/tune_wgrad.csv --batch-size 200 > $R/tune_wgrad.log 2>&1
timeout 110 $B tune --problems model_zoo_dgrad --top 5 --vs cudnn --decisions $R/decisions.json --output $R/tune_dgrad.csv --batch-size 200 > $R/tune_dgrad.log 2>&1
timeout 165 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/zoo_wgrad.csv --batch-size 200 --workers 16 > $R/zoo_wgrad.log 2>&1
timeout 85 $B bench --problems model_zoo --direction dgrad --vs cudnn --output $R/zoo_dgrad.csv --batch-size 200 --workers 16 > $R/zoo_dgrad.log 2>&1
timeout 55 $B bench --problems configs/problems/wgrad_unseen.txt --direction wgrad --vs cudnn --output $R/unseen_wgrad.csv --batch-size 200 --workers 16 > $R/unseen_wgrad.log 2>&1
tail -n 2 $R/selftest_ws.log; grep -h "geomean\|gconv kernels alone\|faster in geometric" $R/*.log
tar czf $OUT/call5.tgz -C $OUT r
