# Session 13, call 5 (the last device seconds): the pipelined banded variant (vec_b 2) against
# the plain one on the 7x7 and 5x5 depthwise layers of 14-56 pixels, cuDNN in the same run.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
timeout 100 $B sweep --variant bwd_weight --problems configs/problems/wgrad_depthwise_large.txt --config configs/traits/bwd_weight_banded_bf16.json --filter "split_k == 0 && warps_m >= 4 && tile_n == 16" --vs cudnn --output $R/banded_piped.csv --batch-size 200 --workers 16 > $R/banded_piped.log 2>&1
tail -n 2 $R/banded_piped.log
tar czf $OUT/call5.tgz -C $OUT r
