# The first device call of the next session (about 9 minutes; carry target/release/gconv,
# target/wheels and this file): what session 12 could not fit. One tarball out.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
# 1. The forward selftest with poisoned outputs (session 10's change; never run on the GPU).
timeout 230 $B selftest --gpu --direction fwd > $R/selftest_fwd.log 2>&1; echo "rc=$?" >> $R/selftest_fwd.log
# 2. The Python GPU suite again (gconv.torch.convert on a bare convolution was fixed after
#    session 12's run: 61 of 62 passed).
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
W=$PWD; (cd /tmp && timeout 110 python3 -m pytest -q -p no:cacheprovider $W/python/tests_gpu > $R/pytest_gpu.log 2>&1; echo "rc=$?" >> $R/pytest_gpu.log)
# 3. `auto` of the retrained model on the unseen backward-weight layers (session 12 measured
#    them with the previous model: 3.316x, best-in-pool 3.553x).
timeout 90 $B bench --problems configs/problems/wgrad_unseen.txt --direction wgrad --vs cudnn --output $R/unseen_wgrad.csv --batch-size 200 --workers 16 > $R/unseen_wgrad.log 2>&1
# 4. The tensor-core wgrad kernel's M slices (vec_b 2-4, new after session 12's last call, not
#    yet run on a GPU) on C/G 32 at 7x7 (0.78x cuDNN in the pool) and C/G 64 at 28x28 (the
#    unseen f16 layer at 0.63x, here in bf16; no direct member could run C/G 64 before).
printf "%s\n" wgrad_bf16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1 wgrad_bf16_n16_g8_c512_k512_i28x28_f3x3_s1x1_p1x1_d1x1 > /tmp/ms.txt
timeout 100 $B sweep --variant bwd_weight --problems /tmp/ms.txt --config configs/traits/bwd_weight_direct_mma_bf16.json --filter "vec_b >= 2 && group_merge == 1 && tile_m <= 64 && tile_k == 8 && split_k == 0" --vs cudnn --output $R/mslices.csv --batch-size 200 --workers 16 > $R/mslices.log 2>&1
tail -n 3 $R/*.log
tar czf $OUT/next.tgz -C $OUT r
