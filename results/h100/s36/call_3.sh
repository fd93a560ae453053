# Session 36, call 3: decisions measured for the real client's backward data (the
# tensor-core stride-phase kernel is new in the pool: `tune --top 12`), the re-tune of the
# backward-weight decisions (session 35's call b: the zoo --top 6, the real client --top 12),
# then the zoo's forward. Afterwards merge $R/decisions.json's new entries into
# models/h200/decisions.json.
# carry ["target/carry/bins.tar.xz"] (the kernels compile there)
#   (timeout 585 bash results/h100/s36/call_3.sh; cd $OUT && tar czf r3.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
cp models/h200/decisions.json $R/decisions.json
timeout 90 $B tune --problems results/h200/s20/rc_grouped_dgrad.txt --top 12 --vs cudnn --decisions $R/decisions.json --output $R/tune_rc_dgrad.csv --batch-size 200 > $R/tune_rc_dgrad.log 2>&1; st tune rc dgrad
timeout 110 $B tune --problems model_zoo_wgrad --top 6 --vs cudnn --decisions $R/decisions.json --output $R/tune_wgrad.csv --batch-size 200 > $R/tune_wgrad.log 2>&1; st tune zoo wgrad
timeout 130 $B tune --problems results/h200/s20/rc_grouped_wgrad.txt --top 12 --vs cudnn --decisions $R/decisions.json --output $R/tune_rc_wgrad.csv --batch-size 200 > $R/tune_rc_wgrad.log 2>&1; st tune rc wgrad
timeout $(( 575 - SECONDS )) $B bench --problems model_zoo --direction fwd --vs cudnn --output $R/bench_fwd.csv --batch-size 200 --workers 16 > $R/bench_fwd.log 2>&1; st bench zoo fwd
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
