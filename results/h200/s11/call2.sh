export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; BO=target/s11/gconv_old; R=$OUT/r; mkdir -p $R
timeout 170 $BO bench --problems target/s11/dw_wgrad.txt --direction wgrad --vs cudnn --output $R/old.csv --batch-size 200 --workers 16 > $R/old.log 2>&1
timeout 170 $B bench --problems target/s11/dw_wgrad.txt --direction wgrad --vs cudnn --output $R/new.csv --batch-size 200 --workers 16 > $R/new.log 2>&1
timeout 150 $B selftest --gpu --direction wgrad > $R/selftest_wgrad.log 2>&1; tail -3 $R/selftest_wgrad.log
prof() { timeout 60 ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats -k "regex:${2:0:12}" -c 1 $B run --backend cuda --problem $1 --kernel $2 --iters 1 --no-graph > $R/$3.txt 2>&1; }
prof wgrad_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1 direct_wgrad_bf16_t8x16x8_w8x1_s1_v2x3_gm1_sk0d_simt_gen ncu_dw3
prof wgrad_bf16_n32_g192_c192_k192_i28x28_f7x7_s1x1_p3x3_d1x1 direct_wgrad_bf16_t7x32x7_w8x1_s1_v2x4_gm1_sk0d_simt_gen ncu_dw7
tail -4 $R/old.log $R/new.log
tar czf $OUT/call2.tgz -C $OUT r
