# For the next session with a device (an H200 if one is lent: the model is trained on H200
# rows): the tensor-core stride-phase dgrad kernel's training rows and H200 decisions. The
# real client's backward data (whole pool and cuDNN), the stride-2 dgrad grid of session 27
# (48 geometries, C/G 8–32; no validation file holds them, `results/h200/s28/retrain.md`),
# then the real client's backward data tuned into the decisions. Afterwards: the training
# command of `models/h200/README.md` ("Training", session 36) with `$R/rc_dgrad.csv.gz
# $R/s2_grid_dgrad.csv.gz` added, validated with `results/h200/s28/retrain.md` (a), (b) and
# `results/h100/s36/call_2/r/unseen_*.csv.gz`; merge `$R/decisions.json` into
# models/h200/decisions.json.
# Build: scripts/h200.sh (the kernels compile there from the binary's pool: no cache needed)
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s36/next_a.sh; cd $OUT && tar czf a.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
timeout 90 $B bench --problems results/h200/s20/rc_grouped_dgrad.txt --direction dgrad --vs cudnn --output $R/rc_dgrad.csv --batch-size 200 --workers 16 > $R/rc_dgrad.log 2>&1; st bench rc dgrad
timeout 330 $B bench --problems results/h200/s27/s2_grid_dgrad.txt --direction dgrad --vs cudnn --output $R/s2_grid_dgrad.csv --batch-size 200 --workers 16 > $R/s2_grid_dgrad.log 2>&1; st bench s2 grid dgrad
cp models/h200/decisions.json $R/decisions.json
timeout $(( 580 - SECONDS )) $B tune --problems results/h200/s20/rc_grouped_dgrad.txt --top 12 --vs cudnn --decisions $R/decisions.json --output $R/tune_rc_dgrad.csv --batch-size 200 > $R/tune_rc_dgrad.log 2>&1; st tune rc dgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
