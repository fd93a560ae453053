# Session 13, call 3: the banded tensor-core depthwise wgrad kernel (new, never run on a GPU)
# swept over the stride-1 depthwise wgrad layers (12 zoo keys + one unseen 1D layer), cuDNN in
# the same run; then one verified run of a first guess.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
timeout 360 $B sweep --variant bwd_weight --problems configs/problems/wgrad_depthwise_s1.txt --config configs/traits/bwd_weight_banded_bf16.json --filter "split_k == 0 && warps_m >= 2" --vs cudnn --output $R/banded.csv --batch-size 200 --workers 16 > $R/banded.log 2>&1
$B report $R/banded.csv > $R/banded.report 2>&1
timeout 30 $B run --backend cuda --problem wgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1 --kernel direct_wgrad_bf16_t112x16x56_w4x1_s1_v8x1_gm1_sk0d_mma_gen --verify --iters 20 > $R/run_verify.log 2>&1
tail -n 5 $R/banded.log; tail -n 3 $R/run_verify.log
tar czf $OUT/call3.tgz -C $OUT r
