# Session 39, call 7: the decision time on the GPU host with this session's model; the Python
# package's GPU tests (torch); the real client (python/benchmarks/real_client.py: five
# torchvision models, batch 64 at 224², bf16, channels_last; numerics, the converted layers
# alone, the whole step eager and as a CUDA graph), with the shipped decisions (session 39: sliding A, resident B, the re-tuned H100 decisions).
# carry ["target/carry/bins.tar.xz", "target/wheels/gconv-0.1.0-cp311-abi3-manylinux_2_34_x86_64.whl"]
#   tar xJf target/carry/bins.tar.xz && (timeout 575 bash results/h200/s39/call_7.sh; cd $OUT && tar czf c7.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
timeout 20 target/release/examples/decision_time > $R/decision_time.log 2>&1; st decision_time
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
timeout 90 python3 -m pytest -q -p no:cacheprovider python/tests_gpu > $R/pytest_gpu.log 2>&1; st pytest gpu
(cd python/benchmarks && timeout $(( 565 - SECONDS )) python3 real_client.py --graph-step --no-pointwise --out $R/real_client.jsonl > $R/real_client.log 2>&1); st real client
true
