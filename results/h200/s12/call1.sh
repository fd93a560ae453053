# Session 12, call 1: kernel-space sweeps on the backward-weight keys that lose to cuDNN
# (carry target/release/gconv and this file). One tarball, since the device tool returns at
# most eight files.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
Z=wgrad_bf16_n32
# 1. The depthwise streaming space (8-channel lanes new) on the two 3x3 keys slower than cuDNN.
printf "%s\n" ${Z}_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1 ${Z}_g192_c192_k192_i28x28_f3x3_s1x1_p1x1_d1x1 > /tmp/dw.txt
timeout 130 $B sweep --variant bwd_weight --problems /tmp/dw.txt --config configs/traits/bwd_weight_stream_bf16.json --filter "vec_b == 3 && split_k == 0 && tile_n != 256 && tile_n != 128" --vs cudnn --output $R/stream_sweep.csv --batch-size 200 --workers 16 > $R/stream_sweep.log 2>&1
# 2. The tensor-core direct space on C/G 32 at 7x7 (0.76x cuDNN in session 11).
timeout 90 $B sweep --variant bwd_weight --problems ${Z}_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1 --config configs/traits/bwd_weight_direct_mma_bf16.json --filter "group_merge == 1 && tile_m <= 64 && tile_k <= 8 && tile_n >= 32" --vs cudnn --output $R/mma_cg32_sweep.csv --batch-size 200 --workers 16 > $R/mma_cg32_sweep.log 2>&1
# 3. Merged groups on tensor cores for C/G 4 (0.80x cuDNN, igemm, in session 11).
timeout 80 $B sweep --variant bwd_weight --problems ${Z}_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1 --config configs/traits/bwd_weight_direct_mma_bf16.json --filter "group_merge >= 2 && split_k == 0 && tile_k == 8 && tile_m == 64" --vs cudnn --output $R/gm_sweep.csv --batch-size 200 --workers 16 > $R/gm_sweep.log 2>&1
# 4. The igemm wgmma and mma.sync spaces on C/G 128 g2 at 28x28 (0.92x cuDNN).
P=${Z}_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1
timeout 60 $B sweep --variant bwd_weight --arch sm_90a --problems $P --config configs/traits/bwd_weight_wgmma_bf16.json --filter "split_k_mode == d && fast_path == general" --vs cudnn --output $R/wgmma_g2_sweep.csv --batch-size 200 --workers 16 > $R/wgmma_g2_sweep.log 2>&1
timeout 60 $B sweep --variant bwd_weight --arch sm_90a --problems $P --config configs/traits/bwd_weight_probe_bf16.json --filter "group_merge == 1" --vs cudnn --output $R/probe_g2_sweep.csv --batch-size 200 --workers 16 > $R/probe_g2_sweep.log 2>&1
# 5. The backward-data selftest with poisoned outputs (session 10's change, not yet run).
timeout 110 $B selftest --gpu --direction dgrad > $R/selftest_dgrad.log 2>&1
for f in $R/*.csv; do $B report $f --top 3 > ${f%.csv}.report 2>&1; done
tail -n 3 $R/*.log
tar czf $OUT/call1.tgz -C $OUT r
