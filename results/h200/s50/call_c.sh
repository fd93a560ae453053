# Session 50, call c (any H100/H200): the direct CUDA-core kernels' filter staging with its
# global reads batched (`stage_batched` in direct/common.cu: up to 8 reads of a thread in
# flight before the first is widened and stored; before, one read, widening and store per
# loop step, each waiting a whole global latency: 15 % of the 7×7 depthwise backward-data
# member's stall samples in call a's Nsight Compute profile), on the CUDA-core forward and
# backward-data paths and the backward-data weight gathers of the tensor-core paths (stride 1
# and stride phases; the stride-phase paths' staging now overlaps the first tile's copies),
# against main before it (`base-s50`), one binary after the other in one lease: the direct
# family on the zoo's C/G ≤ 4 forward layers (ab_fwd.txt) and all 27 zoo backward-data layers
# (ab_dgrad.txt). `gconv compare` gives the ratios new / base; every row verified. Then the
# GPU selftest of the direct family's members, backward data first, with the new binary.
# Build: `bash scripts/h200.sh base-s50` (target/base-s50/gconv beside the new one).
# carry ["target/carry/bins.tar.xz"]; slim tree keeping results/h100/s35/prelude.sh results/h200/s50:
#   tar xJf target/carry/bins.tar.xz && (timeout 310 bash results/h200/s50/call_c.sh; cd $OUT && tar czf cc.tgz r; cat r/gpu.txt r/progress.log; cat r/ab_*.txt | grep -i geomean; grep -h "passed" r/selftest_*.log | tail -4)
source results/h100/s35/prelude.sh
O=target/base-s50/gconv
S=results/h200/s50
for d in fwd dgrad; do
  if [ $d = fwd ]; then lim=70; else lim=200; fi
  timeout $(( (lim - SECONDS) / 2 )) $O bench --problems $S/ab_$d.txt --direction $d --family direct --output $R/ab_${d}_base.csv --batch-size 200 --workers 16 > $R/ab_${d}_base.log 2>&1; st bench $d base
  timeout $(( lim - SECONDS )) $B bench --problems $S/ab_$d.txt --direction $d --family direct --output $R/ab_${d}_new.csv --batch-size 200 --workers 16 > $R/ab_${d}_new.log 2>&1; st bench $d new
  $B compare $R/ab_${d}_base.csv $R/ab_${d}_new.csv > $R/ab_$d.txt 2>&1
  $B report $R/ab_${d}_new.csv > $R/ab_${d}_new.report.txt 2>&1
  $B report $R/ab_${d}_base.csv > $R/ab_${d}_base.report.txt 2>&1
done
for d in dgrad fwd; do
  [ $SECONDS -lt 260 ] || break
  if [ $d = dgrad ]; then t=$(( (300 - SECONDS) * 2 / 3 )); else t=$(( 300 - SECONDS )); fi
  timeout $t $B selftest --gpu --direction $d --kernels direct_$d > $R/selftest_$d.log 2>&1; st selftest $d
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
