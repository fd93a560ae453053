# Session 48, call b (any H100/H200): main's direct-family weight staging (this session: the
# merged-group expansion in 16-byte row vectors, the merged backward-data gather VW channels per
# read, and the CUDA-core and backward-data weight reads issued while the first tile's halo
# copies are in flight, walk_tiles' prologue) against the commit before it (`base-s48`), one
# binary after the other in one lease: the direct family of each direction on the real
# client's grouped layers and the zoo's depthwise/grouped keys (ab_fwd.txt; ab_dgrad.txt is its
# stride-1 part: strided backward data runs on the phase kernels, unchanged). `gconv compare`
# gives the ratios new / base. Then the GPU selftest of the direct family's members, both
# directions, with the new binary.
# Build: `bash scripts/h200.sh base-s48` (target/base-s48/gconv beside main's).
# carry ["target/carry/bins.tar.xz"]; slim tree keeping results/h100/s35/prelude.sh results/h200/s48:
#   tar xJf target/carry/bins.tar.xz && (timeout 575 bash results/h200/s48/call_b.sh; cd $OUT && tar czf cb.tgz r; cat r/gpu.txt r/progress.log; cat r/ab_*.txt; grep -h "passed" r/selftest_*.log | tail -4)
source results/h100/s35/prelude.sh
O=target/base-s48/gconv
S=results/h200/s48
for d in fwd dgrad; do
  if [ $d = fwd ]; then lim=230; else lim=440; fi
  timeout $(( (lim - SECONDS) / 2 )) $O bench --problems $S/ab_$d.txt --direction $d --family direct --output $R/ab_${d}_base.csv --batch-size 200 --workers 16 > $R/ab_${d}_base.log 2>&1; st bench $d base
  timeout $(( lim - SECONDS )) $B bench --problems $S/ab_$d.txt --direction $d --family direct --output $R/ab_${d}_new.csv --batch-size 200 --workers 16 > $R/ab_${d}_new.log 2>&1; st bench $d new
  $B compare $R/ab_${d}_base.csv $R/ab_${d}_new.csv > $R/ab_$d.txt 2>&1
  $B report $R/ab_${d}_new.csv > $R/ab_${d}_new.report.txt 2>&1
  $B report $R/ab_${d}_base.csv > $R/ab_${d}_base.report.txt 2>&1
done
for d in fwd dgrad; do
  [ $SECONDS -lt 540 ] || break
  if [ $d = fwd ]; then t=$(( (560 - SECONDS) / 2 )); else t=$(( 565 - SECONDS )); fi
  timeout $t $B selftest --gpu --direction $d --kernels direct_$d > $R/selftest_$d.log 2>&1; st selftest $d
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
