# Session 40, call 5: main with the direct tensor-core overhead changes (calls 3-4) and the
# stride-phase kernel's 16-byte weight gathers: the GPU correctness matrix of every direct
# backward-data pool member (call 4's run was cut while compiling), the zoo's backward-data
# bench with cuDNN in the same run, and the H100 backward-data decisions re-tuned (the members
# got faster unevenly, so the fastest member of a layer may have changed).
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s40/call_5.sh; cd $OUT && tar czf c5.tgz r; cat r/progress.log; tail -2 r/selftest_direct_dgrad.log; tail -3 r/bench_dgrad.report.txt)
source results/h100/s35/prelude.sh
cp models/h200/decisions.json $R/decisions.json
timeout 250 $B selftest --gpu --kernels direct_dgrad > $R/selftest_direct_dgrad.log 2>&1; st selftest direct dgrad
timeout 100 $B bench --problems model_zoo --direction dgrad --vs cudnn --output $R/bench_dgrad.csv --batch-size 200 --workers 16 > $R/bench_dgrad.log 2>&1; st bench zoo dgrad
$B report $R/bench_dgrad.csv > $R/bench_dgrad.report.txt 2>&1
timeout 90 $B tune --problems model_zoo_dgrad --top 6 --vs cudnn --decisions $R/decisions.json --output $R/tune_zoo_dgrad.csv --batch-size 200 > $R/tune_zoo_dgrad.log 2>&1; st tune zoo dgrad
timeout $(( 585 - SECONDS )) $B tune --problems results/h200/s20/rc_grouped_dgrad.txt --top 12 --vs cudnn --decisions $R/decisions.json --output $R/tune_rc_dgrad.csv --batch-size 200 > $R/tune_rc_dgrad.log 2>&1; st tune rc dgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
