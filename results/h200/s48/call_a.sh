# Session 48, call a (any H100/H200), binaries from `bash scripts/h200.sh` on main (carry
# target/carry/bins.tar.xz; slim tree keeping results/h100/s35/prelude.sh results/h200/s48
# results/h200/s47/call_i):
#   tar xJf target/carry/bins.tar.xz && (timeout 570 bash results/h200/s48/call_a.sh; cd $OUT && tar czf ca.tgz r; cat r/gpu.txt r/progress.log; head -4 r/compare.txt; cat r/probe_stops.txt)
# 1. Session 47's burst confirmation of the probe's early stop, on the GPU: the backward-data
#    layers of families never trained on, re-benched with cuDNN and paired with session 47's
#    call i (`gconv compare`); how many probes stopped early, how many confirmations.
# 2. The decision time on this host (the decision_time example).
# 3. Training rows of the backward-data pool: on an H200 the shards of `bwd_data_2d` that only
#    an H100 measured (session 47's call g: 4, 5; then 6), on an H100 the shard no card
#    measured (7).
source results/h100/s35/prelude.sh
sed 's/^fwd_/dgrad_/' configs/problems/fwd_unseen.txt > $R/dgrad_unseen.txt
timeout 150 $B bench --problems $R/dgrad_unseen.txt --direction dgrad --vs cudnn --output $R/dgrad_unseen3.csv --batch-size 200 --workers 16 > $R/dgrad_unseen3.log 2>&1; st bench dgrad unseen
$B report $R/dgrad_unseen3.csv > $R/dgrad_unseen3.report.txt 2>&1
$B compare results/h200/s47/call_i/dgrad_unseen2.csv.gz $R/dgrad_unseen3.csv > $R/compare.txt 2>&1
{ echo "probe stops: $(grep -c 'stopped early after the probe' $R/dgrad_unseen3.csv.messages.jsonl)";
  grep -o 'its confirmation ([0-9]* back-to-back' $R/dgrad_unseen3.csv.messages.jsonl | sort | uniq -c; } > $R/probe_stops.txt
timeout 60 target/release/examples/decision_time > $R/decision_time.log 2>&1; st decision_time
if grep -q H200 $R/gpu.txt; then shards="4 5 6"; else shards="7"; fi
for s in $shards; do
  [ $SECONDS -lt 480 ] || break
  timeout $(( 555 - SECONDS )) $B bench --problems bwd_data_2d --direction dgrad --shard $s/8 --output $R/dgrad_2d.csv --resume --batch-size 200 --workers 16 > $R/dgrad_2d_$s.log 2>&1; st bench dgrad_2d shard $s
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
