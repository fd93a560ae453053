# Session 38, call 5: the host time per gconv.torch call (python/benchmarks/host_overhead.py,
# three processes) and the two models whose eager step was slower converted in call 4
# (convnext_tiny, resnext50_32x4d), again, to tell the host's noise from a systematic cost.
# carry as call 4
#   tar xJf target/carry/bins.tar.xz && (timeout 300 bash results/h100/s38/call_5.sh; cd $OUT && tar czf c5.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
for i in 1 2 3; do timeout 40 python3 python/benchmarks/host_overhead.py >> $R/host_overhead.log 2>&1; st host overhead $i; done
(cd python/benchmarks && timeout $(( 280 - SECONDS )) python3 real_client.py --models convnext_tiny resnext50_32x4d --no-pointwise --out $R/real_client.jsonl > $R/real_client.log 2>&1); st real client
true
