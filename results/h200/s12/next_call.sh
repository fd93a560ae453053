# The first device call of the next session (about 8 minutes; carry target/release/gconv,
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
tail -n 3 $R/*.log
tar czf $OUT/next.tgz -C $OUT r
