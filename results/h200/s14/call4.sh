# Session 14, call 4 (about 2 minutes of work; carry target/release/gconv): call 3 again with two
# producer warpgroups (256 threads) instead of one: call 3 showed the single producer warpgroup
# issue-bound (one warp per scheduler). Against the all-warps schedule, every row verified, cuDNN
# in the same run; then the synchronisation, race and memory checkers on one wgmmaws kernel.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
P=configs/problems/gemm_heavy_fwd.txt
sed 's/^fwd_/dgrad_/' $P > /tmp/dg.txt; sed 's/^fwd_/wgrad_/' $P > /tmp/wg.txt
F="tile_n >= 128 && group_merge == 1 && stages >= 4"
timeout 130 $B sweep --variant bwd_data --problems /tmp/dg.txt --config configs/traits/bwd_data_wgmmaws_bf16.json --arch sm_90a --filter "$F" --vs cudnn --output $R/ws_dgrad.csv --batch-size 200 --workers 16 > $R/ws_dgrad.log 2>&1
timeout 130 $B sweep --variant bwd_weight --problems /tmp/wg.txt --config configs/traits/bwd_weight_wgmmaws_bf16.json --arch sm_90a --filter "$F" --vs cudnn --output $R/ws_wgrad.csv --batch-size 200 --workers 16 > $R/ws_wgrad.log 2>&1
timeout 130 $B sweep --variant forward --problems $P --config configs/traits/forward_wgmmaws_bf16.json --arch sm_90a --filter "$F" --vs cudnn --output $R/ws_fwd.csv --batch-size 200 --workers 16 > $R/ws_fwd.log 2>&1
for d in dgrad wgrad fwd; do $B report $R/ws_$d.csv > $R/ws_$d.report 2>&1; done
K=igemm_dgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmaws_gen
Q=dgrad_bf16_n4_g2_c256_k256_i14x14_f3x3_s1x1_p1x1_d1x1
timeout 40 compute-sanitizer --tool synccheck $B run --backend cuda --problem $Q --kernel $K --iters 1 --no-graph --verify > $R/synccheck.log 2>&1
timeout 40 compute-sanitizer --tool memcheck $B run --backend cuda --problem $Q --kernel $K --iters 1 --no-graph --verify > $R/memcheck.log 2>&1
timeout 40 compute-sanitizer --tool racecheck $B run --backend cuda --problem $Q --kernel $K --iters 1 --no-graph --verify > $R/racecheck.log 2>&1
Q2=fwd_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1
for M in wgmma wgmmaws; do
  timeout 60 ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats --launch-count 1 -k regex:igemm $B run --backend cuda --problem $Q2 --kernel igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_${M}_gen --iters 1 --no-graph > $R/ncu_fwd_$M.txt 2>&1
done
tail -n 3 $R/ws_*.log $R/*check.log
tar czf $OUT/call4.tgz -C $OUT r
