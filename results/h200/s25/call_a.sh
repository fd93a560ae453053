# Session 25, call a: (1) the torch GPU tests from the repository root (session 24's call c ran
# them inside python/, where the source package shadowed the wheel); (2) where a converted
# model's eager step spends its extra time (host_breakdown.py: gconv's Python layers timed,
# and the step with the launches skipped), and torch.profiler tables of convnext_small;
# (3) with the time left, the 3D oracle shards completed with the depth-streaming members
# (session 24's next_3d.sh, resumable).
#   scripts/h200.sh; (cd python && ../.venv/bin/maturin build --release --out ../target/wheels);
#   mkdir -p target/oracle && for f in fwd_3d dgrad_3d; do
#     zcat data/oracle/h200/$f.shard-0-of-4.csv.gz > target/oracle/$f.shard-0-of-4.csv; done
#   carry ["target/carry/bins.tar.xz", "target/wheels", "target/oracle"];
#   tar xJf target/carry/bins.tar.xz && (timeout 570 bash results/h200/s25/call_a.sh; cd $OUT && tar czf a.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
SECONDS=0
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
timeout 80 python3 -m pytest -q -p no:cacheprovider python/tests_gpu > $R/pytest_gpu.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/pytest_gpu.log
cd python/benchmarks
timeout 120 python3 host_breakdown.py --models convnext_tiny regnet_y_800mf > $R/host_breakdown.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/host_breakdown.log
timeout 100 python3 new_models.py --iters 5 --profile --out $R/profile.jsonl --models convnext_small > $R/profile.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/profile.log
cd ../..
B=target/release/gconv
cp target/oracle/fwd_3d.shard-0-of-4.csv target/oracle/dgrad_3d.shard-0-of-4.csv $R/
left=$(( (555 - SECONDS) / 2 ))
timeout $left $B bench --problems forward_3d --direction fwd --vs cudnn --shard 0/4 --batch-size 200 --resume --output $R/fwd_3d.shard-0-of-4.csv > $R/fwd_3d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/fwd_3d.log
left=$(( 555 - SECONDS ))
timeout $left $B bench --problems bwd_data_3d --direction dgrad --vs cudnn --shard 0/4 --batch-size 200 --resume --output $R/dgrad_3d.shard-0-of-4.csv > $R/dgrad_3d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/dgrad_3d.log
gzip -f $R/*.csv $R/*.messages.jsonl 2>/dev/null; true
