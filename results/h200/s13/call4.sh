# Session 13, call 4: the wgrad pool with the banded tensor-core members: the GPU selftest
# (every wgrad pool member on the correctness matrix, poisoned outputs, determinism), the zoo
# wgrad bench against cuDNN, and the tuned decisions (the bf16 wgrad pool changed, so session
# 12's wgrad decisions no longer apply).
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
timeout 170 $B selftest --gpu --direction wgrad > $R/selftest_wgrad.log 2>&1; echo "rc=$?" >> $R/selftest_wgrad.log
timeout 170 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/zoo_wgrad.csv --batch-size 200 --workers 16 > $R/zoo_wgrad.log 2>&1
cp models/h200/decisions.json $R/decisions.json
timeout 160 $B tune --problems model_zoo_wgrad --top 5 --vs cudnn --decisions $R/decisions.json --output $R/tune_wgrad.csv > $R/tune_wgrad.log 2>&1
tail -n 2 $R/selftest_wgrad.log; grep geomean $R/zoo_wgrad.log; tail -n 3 $R/tune_wgrad.log
tar czf $OUT/call4.tgz -C $OUT r
