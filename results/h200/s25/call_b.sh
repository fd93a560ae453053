# Session 25, call b: gconv.torch's eager node now owns the autocast casts and the bias (call a
# found 130-140 us per forward call in gconv's module path against 94 us for torch's whole
# conv2d, and 180-235 us more per swapped convolution per step). The torch GPU tests (a new one:
# bias and autocast gradients), host_breakdown.py on four models (alternating rounds), then the
# real client on its five models (eager and graph-replayed steps).
#   (cd python && ../.venv/bin/maturin build --release --out ../target/wheels)
#   carry ["target/wheels"];
#   (timeout 590 bash results/h200/s25/call_b.sh; cd $OUT && tar czf b.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
SECONDS=0
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
timeout 80 python3 -m pytest -q -p no:cacheprovider python/tests_gpu > $R/pytest_gpu.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/pytest_gpu.log
cd python/benchmarks
timeout 150 python3 host_breakdown.py --models convnext_tiny regnet_y_800mf resnext50_32x4d mobilenet_v3_large > $R/host_breakdown.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/host_breakdown.log
left=$(( 580 - SECONDS ))
timeout $left python3 real_client.py --graph-step --out $R/real_client.jsonl > $R/real_client.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/real_client.log
true
