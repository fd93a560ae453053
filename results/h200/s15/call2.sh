# Session 15, call 2 (about 9 minutes; carry target/release/gconv): the shared-memory
# carveout set per kernel (runtime.rs, smem_carveout_percent) against the driver's own choice
# (GCONV_SMEM_CARVEOUT=driver): Nsight Compute's launch and occupancy sections of the
# 64x128x64 3-stage mma.sync backward-data kernel (74 KB, 128 threads: 3 blocks fit) under
# both, then the zoo benches of the three directions under both (the second run of each
# direction finds its kernels compiled).
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=$PWD/target/release/gconv; R=$OUT/r; mkdir -p $R
P=dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1
K=igemm_dgrad_bf16_t64x128x64_w2x2_s3_v8x8_gm1_sk1d_mma_gen
for m in driver fit; do
  GCONV_SMEM_CARVEOUT=$m timeout 60 ncu --section LaunchStats --section Occupancy --section SpeedOfLight -k regex:igemm --launch-count 1 $B run --backend cuda --problem $P --kernel $K --iters 1 --no-graph > $R/ncu_$m.txt 2>&1
  GCONV_SMEM_CARVEOUT=$m timeout 30 $B run --backend cuda --problem $P --kernel $K --verify --iters 50 > $R/run_$m.txt 2>&1
done
for d in dgrad fwd wgrad; do
  for m in driver fit; do
    if [ $d = wgrad ] && [ $m = driver ]; then continue; fi  # call 1 ran it under the driver
    GCONV_SMEM_CARVEOUT=$m timeout 150 $B bench --problems model_zoo --direction $d --vs cudnn --output $R/zoo_${d}_$m.csv --batch-size 200 --workers 16 > $R/zoo_${d}_$m.log 2>&1
  done
done
grep -h "Shared Memory Configuration Size\|Theoretical Occupancy\|Achieved Occupancy\|Block Limit Shared\|Duration" $R/ncu_*.txt; tail -n 4 $R/run_*.txt
for d in dgrad fwd; do $B compare $R/zoo_${d}_driver.csv $R/zoo_${d}_fit.csv > $R/compare_$d.txt 2>&1; tail -n 4 $R/compare_$d.txt; done
grep -h geomean $R/zoo_*.log
tar czf $OUT/call2.tgz -C $OUT r
