# Session 39, call 5: call 4 again with `gconv tune` measuring each cached decision beside the
# model's candidates (call 4 replaced two 3D depthwise decisions by slower members it never
# compared with them), without the rc benches: the H100 forward and backward-data entries
# re-tuned from the shipped decisions, the zoo (top 6) and the real client (top 12), cuDNN in
# the same run.
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s39/call_5.sh; cd $OUT && tar czf c5.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
cp models/h200/decisions.json $R/decisions.json
for d in dgrad fwd; do
  timeout 90 $B tune --problems model_zoo_$d --top 6 --vs cudnn --decisions $R/decisions.json --output $R/tune_zoo_$d.csv --batch-size 200 > $R/tune_zoo_$d.log 2>&1; st tune zoo $d
  timeout 100 $B tune --problems results/h200/s20/rc_grouped_$d.txt --top 12 --vs cudnn --decisions $R/decisions.json --output $R/tune_rc_$d.csv --batch-size 200 > $R/tune_rc_$d.log 2>&1; st tune rc $d
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
