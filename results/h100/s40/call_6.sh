# Session 40, call 6 (named no device kind: an H200 if one is lent): the zoo's backward-data
# bench with the direct tensor-core overhead changes and the zoo's backward-weight bench
# (session 39's H200 run was cut at 11 of 27 keys), cuDNN in the same run, and PyTorch's best
# layout on both key sets in the same lease.
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz", "target/torch_baseline.py"]
#   tar xJf target/carry/bins.tar.xz && (timeout 470 bash results/h100/s40/call_6.sh; cd $OUT && tar czf c6.tgz r; cat r/gpu.txt r/progress.log; grep geomean r/bench_*.report.txt)
source results/h100/s35/prelude.sh
timeout 110 $B bench --problems model_zoo --direction dgrad --vs cudnn --output $R/bench_dgrad.csv --batch-size 200 --workers 16 > $R/bench_dgrad.log 2>&1; st bench zoo dgrad
$B report $R/bench_dgrad.csv > $R/bench_dgrad.report.txt 2>&1
$B problems model_zoo_dgrad > $R/zoo_dgrad.txt 2>/dev/null
timeout 60 python3 target/torch_baseline.py $R/zoo_dgrad.txt --graph --out $R/torch_dgrad.csv > $R/torch_dgrad.log 2>&1; st torch dgrad
timeout 170 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/bench_wgrad.csv --batch-size 200 --workers 16 > $R/bench_wgrad.log 2>&1; st bench zoo wgrad
$B report $R/bench_wgrad.csv > $R/bench_wgrad.report.txt 2>&1
$B problems model_zoo_wgrad > $R/zoo_wgrad.txt 2>/dev/null
timeout $(( 465 - SECONDS )) python3 target/torch_baseline.py $R/zoo_wgrad.txt --graph --out $R/torch_wgrad.csv > $R/torch_wgrad.log 2>&1; st torch wgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
