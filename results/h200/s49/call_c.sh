# Session 49, call c (any H100/H200): the direct tensor-core path's one-k8-per-tap walk for one
# 8-channel chunk per tap (C/G 8, and C/G 4 / 2 merged to 8: `tap_rows` of fwd_mma.cu, one
# m16n8k8 per tap on a filter row's matrices loaded once, three partial sums) against main
# before it (`base-s49`: the k16 steps that slide across taps), one binary after the other in
# one lease: the direct family on stride-1 C/G 2/4/8 layers (ab_fwd.txt, ab_dgrad.txt: the
# real client's and the zoo's, 2D and 3D, 5×5 and 7×7 filters, f16). `gconv compare` gives the
# ratios new / base; every row verified. Then the GPU selftest of the direct family's members
# of both directions with the new binary.
# Build: `bash scripts/h200.sh base-s49` (target/base-s49/gconv beside the new one).
# carry ["target/carry/bins.tar.xz"]; slim tree keeping results/h100/s35/prelude.sh results/h200/s49:
#   tar xJf target/carry/bins.tar.xz && (timeout 290 bash results/h200/s49/call_c.sh; cd $OUT && tar czf cc.tgz r; cat r/gpu.txt r/progress.log; cat r/ab_*.txt; grep -h "passed" r/selftest_*.log | tail -4)
source results/h100/s35/prelude.sh
O=target/base-s49/gconv
S=results/h200/s49
for d in fwd dgrad; do
  if [ $d = fwd ]; then lim=75; else lim=155; fi
  timeout $(( (lim - SECONDS) / 2 )) $O bench --problems $S/ab_$d.txt --direction $d --family direct --output $R/ab_${d}_base.csv --batch-size 200 --workers 16 > $R/ab_${d}_base.log 2>&1; st bench $d base
  timeout $(( lim - SECONDS )) $B bench --problems $S/ab_$d.txt --direction $d --family direct --output $R/ab_${d}_new.csv --batch-size 200 --workers 16 > $R/ab_${d}_new.log 2>&1; st bench $d new
  $B compare $R/ab_${d}_base.csv $R/ab_${d}_new.csv > $R/ab_$d.txt 2>&1
  $B report $R/ab_${d}_new.csv > $R/ab_${d}_new.report.txt 2>&1
  $B report $R/ab_${d}_base.csv > $R/ab_${d}_base.report.txt 2>&1
done
for d in fwd dgrad; do
  [ $SECONDS -lt 250 ] || break
  if [ $d = fwd ]; then t=$(( (280 - SECONDS) / 3 )); else t=$(( 285 - SECONDS )); fi
  timeout $t $B selftest --gpu --direction $d --kernels direct_$d > $R/selftest_$d.log 2>&1; st selftest $d
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
