# Session 47, for the next session's first call (any H100/H200), built with
# `bash scripts/h200.sh` from main after session 47 (the burst confirmation of the probe's early
# stop is in that binary, not in session 47's calls):
# 1. The new confirmation on the GPU: call f/i's backward-data set re-benched with cuDNN, set
#    against call i's rows (`gconv compare`: the same pairs and statuses, the latencies within
#    noise), the number of probe stops and of confirmations in the messages.
# 2. Training rows of the backward-data pool: the rest of `bwd_data_2d` (shards 6 and 7 of 8;
#    call g measured 3-5 whole and part of 6 on an H100), then `bwd_weight_2d` shard 6 of 8.
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]; keep
# results/h100/s35/prelude.sh and results/h200/s47 in a slim tree:
#   tar xJf target/carry/bins.tar.xz && (timeout 570 bash results/h200/s47/call_next.sh; cd $OUT && tar czf cn.tgz r; cat r/gpu.txt r/progress.log; head -4 r/compare.txt; cat r/probe_stops.txt)
source results/h100/s35/prelude.sh
sed 's/^fwd_/dgrad_/' configs/problems/fwd_unseen.txt > $R/dgrad_unseen.txt
timeout 120 $B bench --problems $R/dgrad_unseen.txt --direction dgrad --vs cudnn --output $R/dgrad_unseen3.csv --batch-size 200 --workers 16 > $R/dgrad_unseen3.log 2>&1; st bench dgrad unseen
$B report $R/dgrad_unseen3.csv > $R/dgrad_unseen3.report.txt 2>&1
$B compare results/h200/s47/call_i/dgrad_unseen2.csv.gz $R/dgrad_unseen3.csv > $R/compare.txt 2>&1
{ echo "probe stops: $(grep -c 'stopped early after the probe' $R/dgrad_unseen3.csv.messages.jsonl)";
  grep -o 'its confirmation ([0-9]* back-to-back' $R/dgrad_unseen3.csv.messages.jsonl | sort | uniq -c; } > $R/probe_stops.txt
for s in 6 7; do
  [ $SECONDS -lt 430 ] || break
  timeout $(( 440 - SECONDS )) $B bench --problems bwd_data_2d --direction dgrad --shard $s/8 --output $R/dgrad_2d.csv --batch-size 200 --workers 16 > $R/dgrad_2d_$s.log 2>&1; st bench dgrad_2d shard $s
done
[ $SECONDS -lt 450 ] && timeout $(( 555 - SECONDS )) $B bench --problems bwd_weight_2d --direction wgrad --shard 6/8 --output $R/wgrad_2d.csv --batch-size 200 --workers 16 > $R/wgrad_2d_6.log 2>&1; st bench wgrad_2d shard 6
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
