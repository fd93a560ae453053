# Session 25, call d: the decision time of the retrained model on the GPU host (issue #14's
# "under 50 µs per decision"), and one gconv.torch call's host time alone with the eager node
# that now owns the casts and the bias (host_overhead.py; session 10's figures are the last).
#   scripts/h200.sh; (cd python && ../.venv/bin/maturin build --release --out ../target/wheels);
#   carry ["target/carry/bins.tar.xz", "target/wheels"];
#   tar xJf target/carry/bins.tar.xz && (timeout 200 bash results/h200/s25/call_d.sh; cd $OUT && tar czf d.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
SECONDS=0
timeout 60 target/release/examples/decision_time > $R/decision_time.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/decision_time.log
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
(cd python/benchmarks && timeout 90 python3 host_overhead.py > $R/host_overhead.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/host_overhead.log)
true
