# Session 39, call 4: the decision cache's H100 forward and backward-data entries re-tuned with
# this binary (sliding A, resident B changed which member wins on C/G 8-32 layers): the model's
# first candidates measured with cuDNN on the zoo (top 6) and the real client (top 12), starting
# from the shipped decisions; then the real client's grouped forward and backward data benched
# with cuDNN.
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s39/call_4.sh; cd $OUT && tar czf c4.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
cp models/h200/decisions.json $R/decisions.json
for d in dgrad fwd; do
  timeout 90 $B tune --problems model_zoo_$d --top 6 --vs cudnn --decisions $R/decisions.json --output $R/tune_zoo_$d.csv --batch-size 200 > $R/tune_zoo_$d.log 2>&1; st tune zoo $d
  timeout 100 $B tune --problems results/h200/s20/rc_grouped_$d.txt --top 12 --vs cudnn --decisions $R/decisions.json --output $R/tune_rc_$d.csv --batch-size 200 > $R/tune_rc_$d.log 2>&1; st tune rc $d
done
for d in dgrad fwd; do
  timeout $(( 580 - SECONDS )) $B bench --problems results/h200/s20/rc_grouped_$d.txt --direction $d --vs cudnn --output $R/rc_$d.csv --batch-size 200 --workers 16 > $R/rc_$d.log 2>&1; st bench rc $d
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
