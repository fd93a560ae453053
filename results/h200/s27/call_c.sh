# Session 27, call c: with the halo members pooled and the retrained model shipped: the GPU
# torch tests against the new wheel, the decision time on the GPU host (three runs), and the
# halo tiles' rows on session 9's unseen sets and the forward 1D set (call a ran out of time
# before them; no baseline, the pool's rows are in the s9 files).
#   scripts/h200.sh; (cd python && maturin build --release --out ../target/wheels);
#   carry ["target/carry/bins.tar.xz", "target/wheels"];
#   tar xJf target/carry/bins.tar.xz && (timeout 420 bash results/h200/s27/call_c.sh; cd $OUT && tar czf c.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=$PWD/target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s26
SECONDS=0
st() { echo "$* rc=$? ${SECONDS}s" | tee -a $R/progress.log; }
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
timeout 100 python3 -m pytest -q -p no:cacheprovider python/tests_gpu > $R/pytest_gpu.log 2>&1; st pytest
for i in 1 2 3; do
  timeout 40 target/release/examples/decision_time > $R/decision_time_$i.log 2>&1; st decision_time $i
done
F=$(cat $S/halo_pool.filter)
sw() { # sw VARIANT DIR OUTNAME PROBLEMS
  timeout 90 $B sweep --variant $1 --arch sm_90a --problems $4 --config $S/halo_pool_$2.json \
    --filter "$F" --output $R/$3.csv --batch-size 200 --workers 16 > $R/$3.log 2>&1; st sweep $3
}
sw bwd_data dgrad halo_dgrad_unseen results/h200/s6/dgrad_unseen.txt
sw forward fwd halo_fwd_unseen configs/problems/fwd_unseen.txt
sw forward fwd halo_fwd_1d forward_1d
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
