# Session 36, call 1: the real client's grouped backward-data layers first (whole pool and
# cuDNN: the tensor-core stride-phase kernel's first GPU rows, `direct::strided`), the GPU
# matrix on every direct backward-data member (the new kernel on every strided case it
# admits), then session 35's call a: the matrix on the merged cases (the merge tails), the
# real client's backward-weight and forward layers, the zoo's backward data, the decision
# time on the GPU host.
# Build: scripts/h200.sh; cache: for each of rc_grouped_{dgrad,wgrad,fwd}.txt
# (results/h200/s20) and model_zoo in every direction,
#   GCONV_CACHE_DIR=target/gc target/release/gconv cache build --problems SET --direction D
#   tar cf - -C target gc | xz -T2 > target/carry/gc.tar.xz
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s36/call_1.sh; cd $OUT && tar czf r1.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
timeout 80 $B bench --problems results/h200/s20/rc_grouped_dgrad.txt --direction dgrad --vs cudnn --output $R/rc_dgrad.csv --batch-size 200 --workers 16 > $R/rc_dgrad.log 2>&1; st bench rc dgrad
timeout 120 $B selftest --gpu --kernels direct_dgrad > $R/selftest_direct_dgrad.log 2>&1; st selftest direct dgrad
timeout 80 $B selftest --gpu --cases merged > $R/selftest_merged.log 2>&1; st selftest merged
for d in wgrad fwd; do
  timeout 70 $B bench --problems results/h200/s20/rc_grouped_$d.txt --direction $d --vs cudnn --output $R/rc_$d.csv --batch-size 200 --workers 16 > $R/rc_$d.log 2>&1; st bench rc $d
done
timeout 15 target/release/examples/decision_time > $R/decision_time.log 2>&1; st decision_time
timeout $(( 580 - SECONDS )) $B bench --problems model_zoo --direction dgrad --vs cudnn --output $R/bench_dgrad.csv --batch-size 200 --workers 16 > $R/bench_dgrad.log 2>&1; st bench zoo dgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
