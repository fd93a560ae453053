# Session 40, call 3: A/B of the direct tensor-core path's per-tile overheads (call 2's SASS
# view of the 3D C/G 8 backward-data member: 52 % of its instructions outside the MMA block):
# target/HEAD/gconv (main before) against target/release/gconv (the depth-streaming slice plan,
# 16-byte backward-data weight gathers, the epilogue's pointer arithmetic). The direct family
# of the zoo's backward-data and forward pools and the real client's backward-data layers,
# each binary timed back to back per set (every ok row verified), then `gconv compare`.
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s40/call_3.sh; cd $OUT && tar czf c3.tgz r; cat r/progress.log r/compare.txt)
source results/h100/s35/prelude.sh
run() { # run SET DIR TAG SECONDS
  for v in HEAD release; do
    timeout $4 target/$v/gconv bench --problems $1 --direction $2 --family direct --output $R/ab_$3_$2_$v.csv --batch-size 200 --workers 16 > $R/ab_$3_$2_$v.log 2>&1; st ab $3 $2 $v
  done
  $B compare $R/ab_$3_$2_HEAD.csv $R/ab_$3_$2_release.csv > $R/cmp_$3_$2.txt 2>&1
  { echo "== $3 $2"; tail -20 $R/cmp_$3_$2.txt; } >> $R/compare.txt
}
run model_zoo dgrad zoo 105
run model_zoo fwd zoo 105
run results/h200/s20/rc_grouped_dgrad.txt dgrad rc 60
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
