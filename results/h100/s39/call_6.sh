# Session 39, call 6: A/B of sliding A fragments for units of every width: target/release/gconv
# (main at d3223b7: units of one n8 block, whole-tap steps addressed by lane deltas) against
# target/slide-all/gconv (the same with `mma::a_slide`'s one-n8-block condition dropped; both
# built by hand on the build machine, stripped, packed as bins.tar.xz), the direct family
# of the zoo's and the real client's backward-data and forward pools, each binary timed back to
# back per set (every ok row verified by the bench), then `gconv compare` of each pair.
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s39/call_6.sh; cd $OUT && tar czf c6.tgz r; cat r/progress.log r/compare.txt)
source results/h100/s35/prelude.sh
run() { # run SET DIR TAG SECONDS
  for v in release slide-all; do
    timeout $4 target/$v/gconv bench --problems $1 --direction $2 --family direct --output $R/ab_$3_$2_$v.csv --batch-size 200 --workers 16 > $R/ab_$3_$2_$v.log 2>&1; st ab $3 $2 $v
  done
  $B compare $R/ab_$3_$2_release.csv $R/ab_$3_$2_slide-all.csv > $R/cmp_$3_$2.txt 2>&1
  { echo "== $3 $2"; tail -20 $R/cmp_$3_$2.txt; } >> $R/compare.txt
}
run model_zoo dgrad zoo 110
run model_zoo fwd zoo 110
run results/h200/s20/rc_grouped_dgrad.txt dgrad rc 60
run results/h200/s20/rc_grouped_fwd.txt fwd rc 60
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
