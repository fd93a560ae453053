# Session 39, call 3: main with sliding A fragments (one-n8-block units) and resident B: the
# direct family's pool members through the GPU correctness matrix (both directions it
# serves), then the zoo's backward-data and forward benches with cuDNN in the same lease.
# PyTorch's best layout on the zoo's backward-data keys in the same lease
# (../shared/bench/torch_baseline.py --graph, carried as target/torch_baseline.py).
# carry ["target/carry/bins.tar.xz", "target/torch_baseline.py"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s39/call_3.sh; cd $OUT && tar czf c3.tgz r; cat r/progress.log; tail -3 r/selftest_*.log; tail -4 r/bench_*.report.txt)
source results/h100/s35/prelude.sh
for d in dgrad fwd; do
  timeout 130 $B selftest --gpu --kernels direct_$d > $R/selftest_direct_$d.log 2>&1; st selftest direct $d
done
for d in dgrad fwd; do
  timeout 110 $B bench --problems model_zoo --direction $d --vs cudnn --output $R/bench_$d.csv --batch-size 200 --workers 16 > $R/bench_$d.log 2>&1; st bench zoo $d
  $B report $R/bench_$d.csv > $R/bench_$d.report.txt 2>&1
done
$B problems model_zoo_dgrad > $R/zoo_dgrad.txt 2>/dev/null
timeout $(( 585 - SECONDS )) python3 target/torch_baseline.py $R/zoo_dgrad.txt --graph --out $R/torch_dgrad.csv > $R/torch_dgrad.log 2>&1; st torch dgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
