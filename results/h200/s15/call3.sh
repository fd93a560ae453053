# Session 15, call 3 (about 5 minutes; carry target/release/gconv and target/wheels): the
# backward-weight tune for the pool that gained two members this session (the shipped
# decisions are keyed by the pool), then the real client with every training step also replayed
# as one CUDA graph (GPU time without PyTorch's host time) and gconv.torch.tune, on the tuned
# decisions. (The two torch examples ran in session 11; the Python GPU suite in session 13.)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
cp models/h200/decisions.json $R/decisions.json
timeout 120 $B tune --problems model_zoo_wgrad --top 5 --vs cudnn --decisions $R/decisions.json --output $R/tune_wgrad.csv --batch-size 200 > $R/tune_wgrad.log 2>&1
export GCONV_DECISIONS=$R/decisions.json
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
timeout 170 python3 python/benchmarks/real_client.py --graph-step --tune --no-pointwise --out $R/real_client.jsonl > $R/real_client.log 2>&1; echo "rc=$?" >> $R/real_client.log
grep -h "kernels alone\|dispatcher\|stale" $R/tune_wgrad.log; cut -c1-700 $R/real_client.log
tar czf $OUT/call3.tgz -C $OUT r
