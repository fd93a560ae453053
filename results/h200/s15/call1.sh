# Session 15, call 1 (about 9 minutes; carry target/release/gconv): the two backward-weight
# pool members session 14 measured but could not add (igemm t128x64x64 wgmmaws; the pipelined
# banded 8x56 member), their selftest, the zoo and unseen backward-weight benches with every
# pool member (the training rows the retrained model needs), and the mma.sync backward-data
# tile space on the zoo's C/G 128 g2 layer (cuDNN's winner there is a 64x128x64 3-stage
# mma.sync kernel).
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
timeout 60 $B selftest --gpu --direction wgrad --kernels t128x64x64_w4x1_s4_v8x8_gm1 > $R/selftest_new1.log 2>&1; echo "rc=$?" >> $R/selftest_new1.log
timeout 60 $B selftest --gpu --direction wgrad --kernels _v8x2_ > $R/selftest_new2.log 2>&1; echo "rc=$?" >> $R/selftest_new2.log
timeout 170 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/zoo_wgrad.csv --batch-size 200 --workers 16 > $R/zoo_wgrad.log 2>&1
timeout 120 $B bench --problems configs/problems/wgrad_unseen.txt --direction wgrad --vs cudnn --output $R/unseen_wgrad.csv --batch-size 200 --workers 16 > $R/unseen_wgrad.log 2>&1
timeout 100 $B sweep --variant bwd_data --problems results/h200/s15/dgrad_cg128.txt --config configs/traits/bwd_data_bf16.json --arch sm_90a --filter "group_merge == 1 && fast_path == general && tile_m <= 128 && tile_n >= 64" --vs cudnn --output $R/dgrad_cg128_mma.csv --batch-size 200 --workers 16 > $R/dgrad_cg128_mma.log 2>&1
$B report $R/dgrad_cg128_mma.csv > $R/dgrad_cg128_mma.report 2>&1
tail -n 2 $R/selftest_new*.log; grep -h "geomean" $R/*.log; head -30 $R/dgrad_cg128_mma.report
tar czf $OUT/call1.tgz -C $OUT r
