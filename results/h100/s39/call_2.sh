# Session 39, call 2: A/B of sliding A fragments on the direct tensor-core path (`mma::a_slide`):
# target/release/gconv (main, without) against target/a-slide/gconv (with), the direct family
# of the zoo's and the real client's backward-data and forward pools, each binary timed back to
# back per set (every ok row verified by the bench), then `gconv compare` of each pair.
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s39/call_2.sh; cd $OUT && tar czf c2.tgz r; cat r/progress.log r/compare.txt)
source results/h100/s35/prelude.sh
run() { # run SET DIR TAG SECONDS
  for v in release a-slide; do
    timeout $4 target/$v/gconv bench --problems $1 --direction $2 --family direct --output $R/ab_$3_$2_$v.csv --batch-size 200 --workers 16 > $R/ab_$3_$2_$v.log 2>&1; st ab $3 $2 $v
  done
  $B compare $R/ab_$3_$2_release.csv $R/ab_$3_$2_a-slide.csv > $R/cmp_$3_$2.txt 2>&1
  { echo "== $3 $2"; tail -20 $R/cmp_$3_$2.txt; } >> $R/compare.txt
}
run model_zoo dgrad zoo 110
run model_zoo fwd zoo 110
run results/h200/s20/rc_grouped_dgrad.txt dgrad rc 60
run results/h200/s20/rc_grouped_fwd.txt fwd rc 60
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
