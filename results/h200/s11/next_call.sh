# The first device call of the next session (about 9 minutes; carry target/release/gconv,
# target/wheels and this file). Everything it writes lands in one tarball, since the device
# tool returns at most eight files.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
# 1. The backward-weight decisions (dropped in session 11 when that pool changed), into the
#    shipped cache's format: copy $R/decisions.json over models/h200/decisions.json's wgrad part.
cp models/h200/decisions.json $R/decisions.json
timeout 150 $B tune --problems model_zoo_wgrad --top 5 --vs cudnn --decisions $R/decisions.json --output $R/tune_wgrad.csv > $R/tune_wgrad.log 2>&1
# 2. The merged-group tensor-core wgrad kernels (not in the pool; 168 with 8x8 tiles) on two
#    layers, C/G 4 (the zoo's, 0.80x cuDNN in session 11) and C/G 2.
printf "%s\n" wgrad_bf16_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1 wgrad_bf16_n16_g64_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1 > /tmp/cg4.txt
timeout 120 $B sweep --variant bwd_weight --problems /tmp/cg4.txt --config configs/traits/bwd_weight_direct_mma_bf16.json --filter "group_merge >= 2 && split_k == 0 && tile_k == 8 && tile_m == 64" --vs cudnn --output $R/gm_sweep.csv --batch-size 200 --workers 16 > $R/gm_sweep.log 2>&1
# 3. The forward and backward-data selftests with poisoned outputs (session 10's change).
timeout 150 $B selftest --gpu --direction dgrad > $R/selftest_dgrad.log 2>&1
timeout 120 $B selftest --gpu --direction fwd > $R/selftest_fwd.log 2>&1
# 4. The Python GPU suite (tune, second derivatives) with its log kept.
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
W=$PWD; (cd /tmp && timeout 120 python3 -m pytest -q -p no:cacheprovider $W/python/tests_gpu > $R/pytest_gpu.log 2>&1)
tail -n 2 $R/*.log
tar czf $OUT/next.tgz -C $OUT r
