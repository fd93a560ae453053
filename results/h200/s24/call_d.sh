# Session 24, call d: the torch GPU tests again (call c ran pytest inside python/, where the
# source package without its compiled module shadowed the wheel), and where the eager step
# time goes on a model that call c found slower converted at batch 16 (torch.profiler).
#   scripts/h200.sh; (cd python && maturin build --release --out ../target/wheels);
#   carry ["target/carry/bins.tar.xz", "target/wheels"];
#   tar xJf target/carry/bins.tar.xz && (timeout 130 bash results/h200/s24/call_d.sh; cd $OUT && tar czf d.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
SECONDS=0
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
timeout 75 python3 -m pytest -q -p no:cacheprovider python/tests_gpu > $R/pytest_gpu.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/pytest_gpu.log
left=$(( 125 - SECONDS ))
timeout $left python3 python/benchmarks/new_models.py --iters 5 --profile --out $R/profile.jsonl --models convnext_small > $R/profile.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/profile.log
true
