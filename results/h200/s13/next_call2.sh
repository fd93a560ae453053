# The second device call of the next session (about 9 minutes; carry target/release/gconv): the
# pipelined banded variant (vec_b 2, session 13, never run on a GPU) against the plain one on
# the stride-1 depthwise wgrad layers, cuDNN in the same run.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
grep -v i2048 configs/problems/wgrad_depthwise_s1.txt > /tmp/dw2d.txt
timeout 330 $B sweep --variant bwd_weight --problems /tmp/dw2d.txt --config configs/traits/bwd_weight_banded_bf16.json --filter "split_k == 0 && warps_m >= 4 && tile_n == 16" --vs cudnn --output $R/banded_piped.csv --batch-size 200 --workers 16 > $R/banded_piped.log 2>&1
$B report $R/banded_piped.csv > $R/banded_piped.report 2>&1
tail -n 3 $R/banded_piped.log
tar czf $OUT/next2.tgz -C $OUT r
# The tap blocks (filters up to 31x31, session 13, never run on a GPU) on large-filter layers
# (13x13 is one of the unseen layers: swept, not trained on).
timeout 200 $B sweep --variant bwd_weight --problems configs/problems/wgrad_depthwise_large_filters.txt --config configs/traits/bwd_weight_banded_bf16.json --filter "split_k == 0 && tile_n <= 16" --vs cudnn --output $R/banded_large.csv --batch-size 200 --workers 16 > $R/banded_large.log 2>&1
tail -n 3 $R/banded_large.log
tar czf $OUT/next2.tgz -C $OUT r
