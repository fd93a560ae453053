export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
timeout 150 $B bench --problems target/s11/dw_wgrad.txt --direction wgrad --vs cudnn --output $R/slide.csv --batch-size 200 --workers 16 > $R/slide.log 2>&1
timeout 50 ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis -k "regex:direct_wgrad" -c 1 $B run --backend cuda --problem wgrad_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1 --kernel direct_wgrad_bf16_t8x16x8_w8x1_s1_v2x3_gm1_sk0d_simt_gen --iters 1 --no-graph > $R/ncu_dw3.txt 2>&1
grep geomean $R/slide.log
tar czf $OUT/call3.tgz -C $OUT r
