# Session 37, call 3: decisions (issue #14's tune mode and decision cache) for the layers whose
# `auto` lost most to best-in-pool on this device: the real client's forward (on the H100 of
# session 36, `auto` chose a 0.68x member on G 9 56^2 stride 2; no H100 entry exists) and
# backward data (H200: the tensor-core stride-phase kernel joined the pool in session 36), then
# the zoo's backward data and forward (--top 6). Afterwards merge $R/decisions.json's new
# entries into models/h200/decisions.json.
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 580 bash results/h100/s37/call_3.sh; cd $OUT && tar czf c3.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
cp models/h200/decisions.json $R/decisions.json
for t in "results/h200/s20/rc_grouped_fwd.txt 12 tune_rc_fwd 120" "results/h200/s20/rc_grouped_dgrad.txt 12 tune_rc_dgrad 120" \
         "model_zoo_dgrad 6 tune_zoo_dgrad 140" "model_zoo_fwd 6 tune_zoo_fwd 150"; do
  set -- $t
  timeout $(( $4 < 570 - SECONDS ? $4 : 570 - SECONDS )) $B tune --problems $1 --top $2 --vs cudnn --decisions $R/decisions.json \
    --output $R/$3.csv --batch-size 200 > $R/$3.log 2>&1; st $3
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
