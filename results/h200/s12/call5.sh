# Session 12, call 5 (binary and wheel of commit ae609f0's tree): backward weight on the 14
# unseen layers with the session's pool, the streaming kernel's space on two 7x7 depthwise
# keys, the Python GPU suite, and fresh backward-weight oracle data (shard 5 of 8 of the 2D
# set, never measured before) for the selection model. Carry target/release/gconv,
# target/wheels and results/h200/s12 (the probe config).
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s12
timeout 90 $B bench --problems configs/problems/wgrad_unseen.txt --direction wgrad --vs cudnn --output $R/unseen_wgrad.csv --batch-size 200 --workers 16 > $R/unseen_wgrad.log 2>&1
printf "%s\n" wgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1 wgrad_bf16_n32_g192_c192_k192_i28x28_f7x7_s1x1_p3x3_d1x1 > /tmp/dw7.txt
timeout 80 $B sweep --variant bwd_weight --problems /tmp/dw7.txt --config $S/probe_dw7.json --output $R/dw7_sweep.csv --batch-size 200 --workers 16 > $R/dw7_sweep.log 2>&1
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
W=$PWD; (cd /tmp && timeout 110 python3 -m pytest -q -p no:cacheprovider $W/python/tests_gpu > $R/pytest_gpu.log 2>&1; echo "pytest rc=$?" >> $R/pytest_gpu.log)
timeout 190 $B bench --problems bwd_weight_2d --direction wgrad --vs cudnn --shard 5/8 --output $R/wgrad_2d.csv --batch-size 200 --workers 16 > $R/wgrad_2d.log 2>&1
for f in unseen_wgrad dw7_sweep; do $B report $R/$f.csv --top 3 > $R/$f.report 2>&1; done
gzip $R/*.messages.jsonl
tail -n 3 $R/*.log
tar czf $OUT/call5.tgz -C $OUT r
