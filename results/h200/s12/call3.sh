# Session 12, call 3: the backward-weight zoo bench with the pool of commit 4a0af80, and the
# durations of the main and reduction kernels on five small wgrad keys (Nsight Compute, no
# cache flush, no clock lock). Carry target/release/gconv.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
timeout 170 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/zoo_wgrad.csv --batch-size 200 --workers 16 > $R/zoo_wgrad.log 2>&1
dur() { # key kernel tag
  timeout 40 ncu --metrics gpu__time_duration.sum --cache-control none --clock-control none \
    $B run --backend cuda --problem $1 --kernel $2 --iters 4 --no-graph > $R/dur_$3.txt 2>&1
}
Z=wgrad_bf16_n32
dur ${Z}_g960_c960_k960_i7x7_f3x3_s1x1_p1x1_d1x1 direct_wgrad_bf16_t8x16x8_w8x1_s1_v2x1_gm1_sk0d_simt_gen g960
dur ${Z}_g384_c384_k384_i14x14_f3x3_s1x1_p1x1_d1x1 direct_wgrad_bf16_t16x64x16_w8x1_s1_v2x3_gm1_sk0d_simt_gen g384
dur ${Z}_g1152_c1152_k1152_i7x7_f5x5_s1x1_p2x2_d1x1 direct_wgrad_bf16_t7x64x7_w8x1_s1_v2x3_gm1_sk0d_simt_gen g1152
dur ${Z}_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1 direct_wgrad_bf16_t64x32x8_w8x1_s2_v3x1_gm1_sk0d_mma_gen cg32
dur ${Z}_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1 direct_wgrad_bf16_t8x144x8_w8x1_s1_v4x3_gm1_sk0d_simt_gen g144
$B report $R/zoo_wgrad.csv --top 3 > $R/zoo_wgrad.report 2>&1
gzip $R/*.messages.jsonl
tail -n 4 $R/zoo_wgrad.log; grep -h "gpu__time_duration\|direct_wgrad\|_reduce" $R/dur_*.txt | head -60
tar czf $OUT/call3.tgz -C $OUT r
