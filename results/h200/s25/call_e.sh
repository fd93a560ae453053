# Session 25, call e: one gconv.torch call's host time, the eager node of this session against
# session 24's (its python/gconv/torch.py of 28cf409, the same compiled module), alternating,
# three runs each (call d's single run: forward 34.3 µs against session 10's 18.7).
#   (cd python && ../.venv/bin/maturin build --release --out ../target/wheels);
#   mkdir -p target/old_py && git show 28cf409:python/gconv/torch.py > target/old_py/torch.py
#   carry ["target/wheels", "target/old_py"];
#   (timeout 200 bash results/h200/s25/call_e.sh; cd $OUT && tar czf e.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
SECONDS=0
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl
cp -r /tmp/gpkg /tmp/gpkg_old && cp target/old_py/torch.py /tmp/gpkg_old/gconv/torch.py
cd python/benchmarks
for i in 1 2 3; do
  for side in new old; do
    pkg=/tmp/gpkg; [ $side = old ] && pkg=/tmp/gpkg_old
    echo "== $side $i" >> $R/host_overhead_ab.log
    PYTHONPATH=$pkg timeout 50 python3 host_overhead.py >> $R/host_overhead_ab.log 2>&1
  done
done
echo "rc=$? ${SECONDS}s" >> $R/host_overhead_ab.log
true
