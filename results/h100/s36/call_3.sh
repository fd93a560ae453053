# Session 36, call 3: the re-tune of the backward-weight decisions (session 35's call b, second
# half: the zoo --top 6, the real client's grouped layers --top 12; merge $R/decisions.json's
# new entries into models/h200/decisions.json afterwards), then the zoo's backward weight.
# carry ["target/carry/bins.tar.xz", "target/carry/gc2.tar.xz"] (call 2's cache)
#   tar xJf target/carry/bins.tar.xz && tar xJf target/carry/gc2.tar.xz -C /tmp && (timeout 590 bash results/h100/s36/call_3.sh; cd $OUT && tar czf r3.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
cp models/h200/decisions.json $R/decisions.json
timeout 100 $B tune --problems model_zoo_wgrad --top 6 --vs cudnn --decisions $R/decisions.json --output $R/tune_wgrad.csv --batch-size 200 > $R/tune_wgrad.log 2>&1; st tune zoo wgrad
timeout 150 $B tune --problems results/h200/s20/rc_grouped_wgrad.txt --top 12 --vs cudnn --decisions $R/decisions.json --output $R/tune_rc_wgrad.csv --batch-size 200 > $R/tune_rc_wgrad.log 2>&1; st tune rc wgrad
timeout $(( 585 - SECONDS )) $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/bench_wgrad.csv --batch-size 200 --workers 16 > $R/bench_wgrad.log 2>&1; st bench zoo wgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
