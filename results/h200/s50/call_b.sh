# Session 50, call b (H200 for the figures; any card runs it): the Python package's GPU
# tests (torch), the real client (python/benchmarks/real_client.py: five torchvision models,
# batch 64 at 224², bf16, channels_last; numerics, the converted layers alone, the whole step
# as a CUDA graph; issue #15) and the decision time on the GPU host (issue #14), binaries and
# wheel of main at the start of session 50.
# carry ["target/carry/bins.tar.xz", "target/wheels/gconv-0.1.0-cp311-abi3-manylinux_2_34_x86_64.whl"];
# slim tree keeping results/h100/s35/prelude.sh results/h200/s50:
#   tar xJf target/carry/bins.tar.xz && (timeout 580 bash results/h200/s50/call_b.sh; cd $OUT && tar czf cb.tgz r; cat r/gpu.txt r/progress.log; tail -3 r/pytest_gpu.log)
source results/h100/s35/prelude.sh
timeout 25 target/release/examples/decision_time > $R/decision_time.log 2>&1; st decision_time
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
(cd python/benchmarks && timeout 420 python3 real_client.py --graph-step --no-pointwise --out $R/real_client.jsonl > $R/real_client.log 2>&1); st real client
timeout $(( 570 - SECONDS )) python3 -m pytest -q -p no:cacheprovider python/tests_gpu > $R/pytest_gpu.log 2>&1; st pytest gpu
true
