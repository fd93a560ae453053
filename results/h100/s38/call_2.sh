# Session 38, call 2 (for an H200; on an H100 the same figures for that card): the zoo's
# backward-data and backward-weight benches with cuDNN, PyTorch's best layout on the same keys
# (../shared/bench/torch_baseline.py --graph, carried as target/torch_baseline.py), the four
# stride-phase members through the GPU correctness matrix, the zoo's backward data and weight
# tuned into the decision cache, then the zoo forward bench.
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz", "target/torch_baseline.py"]
#   tar xJf target/carry/bins.tar.xz && (timeout 575 bash results/h100/s38/call_2.sh; cd $OUT && tar czf c2.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
for d in dgrad wgrad; do
  timeout 100 $B bench --problems model_zoo --direction $d --vs cudnn --output $R/bench_$d.csv --batch-size 200 --workers 16 > $R/bench_$d.log 2>&1; st bench zoo $d
  $B problems model_zoo_$d > $R/zoo_$d.txt 2>/dev/null
  timeout 50 python3 target/torch_baseline.py $R/zoo_$d.txt --graph --out $R/torch_$d.csv > $R/torch_$d.log 2>&1; st torch $d
done
timeout 60 $B selftest --gpu --kernels _s2_v16x2_ > $R/selftest_s2_v16x2.log 2>&1; st selftest s2_v16x2
cp models/h200/decisions.json $R/decisions.json
for d in dgrad wgrad; do
  timeout 65 $B tune --problems model_zoo_$d --top 6 --vs cudnn --decisions $R/decisions.json --output $R/tune_$d.csv --batch-size 200 > $R/tune_$d.log 2>&1; st tune zoo $d
done
timeout $(( 560 - SECONDS )) $B bench --problems model_zoo --direction fwd --vs cudnn --output $R/bench_fwd.csv --batch-size 200 --workers 16 > $R/bench_fwd.log 2>&1; st bench zoo fwd
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
