# Session 41, call 3 (named nvidia-h200): the zoo's backward weight (27 keys) and backward data
# (27 keys) on an H200, cuDNN in the same runs and PyTorch's best layout (`torch_baseline.py
# --graph`) in the same lease, and `gconv run --kernel auto --verify` on every zoo
# backward-weight key (the repeat's bytes compared: the determinism check). Stops at once on
# any other GPU (calls 1 and 2 named nvidia-h200 and got an H100).
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz", "target/torch_baseline.py"]
#   tar xJf target/carry/bins.tar.xz && (timeout 340 bash results/h200/s41/call_3.sh; cd $OUT && tar czf c3.tgz r; cat r/gpu.txt r/progress.log; grep geomean r/bench_*.report.txt)
source results/h100/s35/prelude.sh
grep -q H200 $R/gpu.txt || { echo "not an H200: $(tail -1 $R/gpu.txt)"; exit 3; }
timeout 150 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/bench_wgrad.csv --batch-size 200 --workers 16 > $R/bench_wgrad.log 2>&1; st bench zoo wgrad
$B report $R/bench_wgrad.csv > $R/bench_wgrad.report.txt 2>&1
$B problems model_zoo_wgrad > $R/zoo_wgrad.txt 2>/dev/null
timeout 50 python3 target/torch_baseline.py $R/zoo_wgrad.txt --graph --out $R/torch_wgrad.csv > $R/torch_wgrad.log 2>&1; st torch wgrad
timeout $(( 320 - SECONDS )) $B bench --problems model_zoo --direction dgrad --vs cudnn --output $R/bench_dgrad.csv --batch-size 200 --workers 16 > $R/bench_dgrad.log 2>&1; st bench zoo dgrad
$B report $R/bench_dgrad.csv > $R/bench_dgrad.report.txt 2>&1
$B problems model_zoo_dgrad > $R/zoo_dgrad.txt 2>/dev/null
[ $SECONDS -lt 300 ] && timeout $(( 330 - SECONDS )) python3 target/torch_baseline.py $R/zoo_dgrad.txt --graph --out $R/torch_dgrad.csv > $R/torch_dgrad.log 2>&1; st torch dgrad
for k in $(cat $R/zoo_wgrad.txt); do
  [ $SECONDS -lt 320 ] || break
  echo "== $k" >> $R/auto_wgrad_verify.log
  timeout 25 $B run --problem $k --backend cuda --kernel auto --verify --iters 5 >> $R/auto_wgrad_verify.log 2>&1
  echo "rc=$?" >> $R/auto_wgrad_verify.log
done; st auto verify wgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
