# Session 45, call c (any H100/H200; the short form of call b for the device time left after
# the failed starts): `gconv selftest --gpu` of the three banded one-channel-per-warp
# backward-weight members session 44 added, each with the reference kernel on every case it
# admits; then, on an H200, the zoo's 27 backward-weight keys with cuDNN in the same run, on
# another card the whole backward-weight correctness matrix (every pool member) for the time left.
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 300 bash results/h200/s45/call_c.sh; cd $OUT && tar czf cc.tgz r; cat r/gpu.txt r/progress.log; grep -h "passed\|FAIL" r/selftest_*.log | tail -8; grep -h geomean r/*.report.txt)
source results/h100/s35/prelude.sh
for k in t112x8x28_w8x1_s1_v8x1 t112x8x14_w8x1_s1_v8x1 t224x8x56_w8x1_s1_v8x1; do
  timeout $(( 100 - SECONDS )) $B selftest --gpu --direction wgrad --kernels $k > $R/selftest_$k.log 2>&1; st selftest $k
done
if grep -q H200 $R/gpu.txt; then
  timeout $(( 290 - SECONDS )) $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/bench_wgrad.csv --batch-size 200 --workers 16 > $R/bench_wgrad.log 2>&1; st bench zoo wgrad
  $B report $R/bench_wgrad.csv > $R/bench_wgrad.report.txt 2>&1
else
  timeout $(( 290 - SECONDS )) $B selftest --gpu --direction wgrad > $R/selftest_wgrad_all.log 2>&1; st selftest wgrad pool
fi
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
