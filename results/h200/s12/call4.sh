# Session 12, call 4: the split reduction with plane slices (binary of the commit after
# 4a0af80): the backward-weight zoo bench, the wgrad selftest (every pool member, determinism),
# the kernel durations of two keys, and the wgrad tune into a copy of the shipped decisions.
# Carry target/release/gconv.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
timeout 170 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/zoo_wgrad.csv --batch-size 200 --workers 16 > $R/zoo_wgrad.log 2>&1
dur() { # key kernel tag
  timeout 30 ncu --metrics gpu__time_duration.sum --cache-control none --clock-control none \
    $B run --backend cuda --problem $1 --kernel $2 --iters 3 --no-graph > $R/dur_$3.txt 2>&1
}
dur wgrad_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1 direct_wgrad_bf16_t8x144x8_w8x1_s1_v4x3_gm1_sk0d_simt_gen g144
dur wgrad_bf16_n32_g384_c384_k384_i14x14_f3x3_s1x1_p1x1_d1x1 direct_wgrad_bf16_t16x64x16_w8x1_s1_v2x3_gm1_sk0d_simt_gen g384
timeout 170 $B selftest --gpu --direction wgrad > $R/selftest_wgrad.log 2>&1; echo "selftest rc=$?" >> $R/selftest_wgrad.log
cp models/h200/decisions.json $R/decisions.json
timeout 150 $B tune --problems model_zoo_wgrad --top 5 --vs cudnn --decisions $R/decisions.json --output $R/tune_wgrad.csv > $R/tune_wgrad.log 2>&1
$B report $R/zoo_wgrad.csv --top 3 > $R/zoo_wgrad.report 2>&1
gzip $R/*.messages.jsonl
tail -n 3 $R/zoo_wgrad.log $R/selftest_wgrad.log $R/tune_wgrad.log; grep -h "gpu__time_duration" $R/dur_*.txt
tar czf $OUT/call4.tgz -C $OUT r
