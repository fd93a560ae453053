# Session 44, call 5 (any H100/H200): `gconv selftest --gpu` on the backward-weight correctness
# matrix for the three banded members this session added to the pool (each with the reference
# kernel on every case it admits), then the same for every backward-weight pool member if time
# is left.
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 250 bash results/h200/s44/call_5.sh; cd $OUT && tar czf c5.tgz r; cat r/gpu.txt r/progress.log; grep -h "passed\|FAIL" r/selftest_*.log | tail -8)
source results/h100/s35/prelude.sh
for k in t112x8x28_w8x1_s1_v8x1 t112x8x14_w8x1_s1_v8x1 t224x8x56_w8x1_s1_v8x1; do
  timeout $(( 120 - SECONDS )) $B selftest --gpu --direction wgrad --kernels $k > $R/selftest_$k.log 2>&1; st selftest $k
done
timeout $(( 235 - SECONDS )) $B selftest --gpu --direction wgrad > $R/selftest_wgrad_all.log 2>&1; st selftest wgrad pool
true
