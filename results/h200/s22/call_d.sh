# Session 22, call d: main with the register-pipelined backward-weight members and the model
# retrained on call c's sweep. The zoo's and the real client's backward-weight layers tuned
# into the shipped decision file (their entries are stale: the backward-weight pool changed),
# a few auto runs verified, then the real client (as session 20's call f) on those decisions.
#   scripts/h200.sh; (cd python && maturin build --release --out ../target/wheels);
#   carry ["target/carry/bins.tar.xz", "target/wheels"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s22/call_d.sh; cd $OUT && tar czf d.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
cp models/h200/decisions.json $R/decisions.json
timeout 170 $B tune --problems model_zoo_wgrad --top 5 --vs cudnn --decisions $R/decisions.json --output $R/tune_wgrad.csv --batch-size 200 > $R/tune_wgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/tune_wgrad.log
timeout 120 $B tune --problems results/h200/s20/rc_grouped_wgrad.txt --top 5 --vs cudnn --decisions $R/decisions.json --output $R/tune_rc_wgrad.csv --batch-size 200 > $R/tune_rc_wgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/tune_rc_wgrad.log
export GCONV_DECISIONS=$R/decisions.json
for p in wgrad_bf16_n32_g14_c336_k336_i14x14_f3x3_s1x1_p1x1_d1x1 wgrad_bf16_n32_g32_c512_k512_i14x14_f3x3_s1x1_p1x1_d1x1 wgrad_bf16_n64_g9_c144_k144_i56x56_f3x3_s2x2_p1x1_d1x1 wgrad_bf16_n16_g24_c384_k384_i28x28_f3x3_s2x2_p1x1_d1x1; do
  timeout 30 $B run --backend cuda --problem $p --kernel auto --iters 30 --verify >> $R/auto_runs.log 2>&1
done
echo "tune done ${SECONDS}s"
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
left=$(( 575 - SECONDS ))
timeout $left python3 python/benchmarks/real_client.py --graph-step --tune --no-pointwise --out $R/real_client.jsonl > $R/real_client.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/real_client.log
gzip -f $R/*.messages.jsonl 2>/dev/null; true
