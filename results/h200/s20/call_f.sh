# Session 20, call f: the real client (five torchvision models, bf16 training steps, each
# also replayed as one CUDA graph; gconv.torch.tune) on this session's main: the stride-phase
# halo columns, the two small-tile direct members and the decision cache of call e (the zoo
# and the real client's grouped layers tuned). Session 15's call 3 is the before.
#   scripts/h200.sh; (cd python && maturin build --release --out ../target/wheels);
#   carry ["target/carry/bins.tar.xz", "target/wheels"];
#   tar xJf target/carry/bins.tar.xz && (timeout 240 bash results/h200/s20/call_f.sh; cd $OUT && tar czf f.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
export GCONV_DECISIONS=models/h200/decisions.json
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
timeout 225 python3 python/benchmarks/real_client.py --graph-step --tune --no-pointwise --out $R/real_client.jsonl > $R/real_client.log 2>&1; echo "rc=$?" >> $R/real_client.log
