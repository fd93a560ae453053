# Session 14, call 7 (about 1.5 minutes; carry target/release/gconv): the whole backward-weight
# schedule-comparison space (both schedules, group merge 1 and 2, 3-5 stages, every tile) on
# the C/G 32-128 layers still slower than cuDNN or close to it, cuDNN in the same run.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
timeout 150 $B sweep --variant bwd_weight --problems configs/problems/wgrad_cg32_128.txt --config configs/traits/bwd_weight_wgmmaws_bf16.json --arch sm_90a --filter "fast_path == 0" --vs cudnn --output $R/ws_cg32.csv --batch-size 200 --workers 16 > $R/ws_cg32.log 2>&1
$B report $R/ws_cg32.csv > $R/ws_cg32.report 2>&1
tail -n 2 $R/ws_cg32.log
tar czf $OUT/call7.tgz -C $OUT r
