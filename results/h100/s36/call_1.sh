# Session 36, call 1: session 35's call a (the GPU matrix on the merged cases with the merge
# tails, the real client's 14 grouped layers per direction, the zoo's backward data, the
# decision time on the GPU host), then the zoo's forward (call b's first step).
# Build: scripts/h200.sh; cache: for each of rc_grouped_{dgrad,wgrad,fwd}.txt
# (results/h200/s20) and model_zoo in every direction,
#   GCONV_CACHE_DIR=target/gc target/release/gconv cache build --problems SET --direction D
#   tar cf - -C target gc | xz -T2 > target/carry/gc.tar.xz
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s36/call_1.sh; cd $OUT && tar czf r1.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
timeout 90 $B selftest --gpu --cases merged --verbose > $R/selftest_merged.log 2>&1; st selftest merged
for d in wgrad dgrad fwd; do
  timeout 70 $B bench --problems results/h200/s20/rc_grouped_$d.txt --direction $d --vs cudnn --output $R/rc_$d.csv --batch-size 200 --workers 16 > $R/rc_$d.log 2>&1; st bench rc $d
done
timeout 110 $B bench --problems model_zoo --direction dgrad --vs cudnn --output $R/bench_dgrad.csv --batch-size 200 --workers 16 > $R/bench_dgrad.log 2>&1; st bench zoo dgrad
timeout 15 target/release/examples/decision_time > $R/decision_time.log 2>&1; st decision_time
timeout $(( 585 - SECONDS )) $B bench --problems model_zoo --direction fwd --vs cudnn --output $R/bench_fwd.csv --batch-size 200 --workers 16 > $R/bench_fwd.log 2>&1; st bench zoo fwd
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
