# Session 35 (no device was lent; for the next session), call b: the rest of session 34's call
# f with this session's binary, after call a (same build and carry; the cache of call a's
# header): the zoo's forward (whole pool and cuDNN), then the re-tune of the backward-weight
# decisions the pool change made stale (the zoo --top 6, the real client's grouped layers
# --top 12). Afterwards merge $R/decisions.json's new entries into models/h200/decisions.json.
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s35/call_b.sh; cd $OUT && tar czf b.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
timeout 140 $B bench --problems model_zoo --direction fwd --vs cudnn --output $R/bench_fwd.csv --batch-size 200 --workers 16 > $R/bench_fwd.log 2>&1; st bench zoo fwd
cp models/h200/decisions.json $R/decisions.json
timeout 100 $B tune --problems model_zoo_wgrad --top 6 --vs cudnn --decisions $R/decisions.json --output $R/tune_wgrad.csv --batch-size 200 > $R/tune_wgrad.log 2>&1; st tune zoo wgrad
timeout $(( 580 - SECONDS )) $B tune --problems results/h200/s20/rc_grouped_wgrad.txt --top 12 --vs cudnn --decisions $R/decisions.json --output $R/tune_rc_wgrad.csv --batch-size 200 > $R/tune_rc_wgrad.log 2>&1; st tune rc wgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
