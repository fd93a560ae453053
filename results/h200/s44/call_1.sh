# Session 44, call 1 (named nvidia-h200; stops at once on any other GPU): the H200 tables issues
# #12 and #13 ask for — the zoo's 27 backward-weight and 27 backward-data keys with cuDNN timed in
# the same runs, PyTorch's best layout (`torch_baseline.py --graph`) in the same lease, `gconv run
# --kernel auto --verify` on every zoo backward-weight key (its repeat compares output bytes: the
# determinism check), and the decision-time example on this host (issue #14).
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz", "target/torch_baseline.py"]
#   tar xJf target/carry/bins.tar.xz && (timeout 560 bash results/h200/s44/call_1.sh; cd $OUT && tar czf c1.tgz r; cat r/gpu.txt r/progress.log; grep geomean r/bench_*.report.txt; tail -8 r/decision_time.log)
source results/h100/s35/prelude.sh
grep -q H200 $R/gpu.txt || { echo "not an H200: $(tail -1 $R/gpu.txt)"; exit 3; }
timeout 170 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/bench_wgrad.csv --batch-size 200 --workers 16 > $R/bench_wgrad.log 2>&1; st bench zoo wgrad
$B report $R/bench_wgrad.csv > $R/bench_wgrad.report.txt 2>&1
$B problems model_zoo_wgrad > $R/zoo_wgrad.txt 2>/dev/null
timeout 60 python3 target/torch_baseline.py $R/zoo_wgrad.txt --graph --out $R/torch_wgrad.csv > $R/torch_wgrad.log 2>&1; st torch wgrad
timeout $(( 400 - SECONDS )) $B bench --problems model_zoo --direction dgrad --vs cudnn --output $R/bench_dgrad.csv --batch-size 200 --workers 16 > $R/bench_dgrad.log 2>&1; st bench zoo dgrad
$B report $R/bench_dgrad.csv > $R/bench_dgrad.report.txt 2>&1
$B problems model_zoo_dgrad > $R/zoo_dgrad.txt 2>/dev/null
[ $SECONDS -lt 400 ] && timeout $(( 460 - SECONDS )) python3 target/torch_baseline.py $R/zoo_dgrad.txt --graph --out $R/torch_dgrad.csv > $R/torch_dgrad.log 2>&1; st torch dgrad
timeout 25 target/release/examples/decision_time > $R/decision_time.log 2>&1; st decision_time
for k in $(cat $R/zoo_wgrad.txt); do
  [ $SECONDS -lt 530 ] || break
  echo "== $k" >> $R/auto_wgrad_verify.log
  timeout 25 $B run --problem $k --backend cuda --kernel auto --verify --iters 5 >> $R/auto_wgrad_verify.log 2>&1
  echo "rc=$?" >> $R/auto_wgrad_verify.log
done; st auto verify wgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
