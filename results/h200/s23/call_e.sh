# Session 23, call e: the decision time on the GPU host; the real client's grouped layers
# re-tuned over the model's first 16 (sessions 20 and 22 measured the first 5 and 8, and missed
# the pool's best on a few stride-2 layers); ResNeXt-50 and RegNetY-800MF on those decisions.
#   scripts/h200.sh; (cd python && maturin build --release --out ../target/wheels);
#   carry ["target/carry/bins.tar.xz", "target/wheels"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s23/call_e.sh; cd $OUT && tar czf e.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
timeout 60 target/release/examples/decision_time > $R/decision_time.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/decision_time.log
cp models/h200/decisions.json $R/decisions.json
for d in wgrad fwd dgrad; do
  timeout 110 $B tune --problems results/h200/s20/rc_grouped_$d.txt --top 16 --vs cudnn --decisions $R/decisions.json --output $R/tune16_rc_$d.csv --batch-size 200 > $R/tune16_rc_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/tune16_rc_$d.log
done
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
export GCONV_DECISIONS=$R/decisions.json
left=$(( 575 - SECONDS ))
timeout $left python3 python/benchmarks/real_client.py --models regnet_y_800mf resnext50_32x4d --graph-step --tune --no-pointwise --out $R/real_client.jsonl > $R/real_client.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/real_client.log
gzip -f $R/*.messages.jsonl $R/tune16_*.csv 2>/dev/null; true
