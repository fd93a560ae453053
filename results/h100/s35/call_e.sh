# Session 35 (no device was lent; for the next session), call e: issue #14's unseen validation
# set measured again with the current pools (its stored rows predate session 34's one-wave
# persistent direct grid and the merge tails, so `gconv validate` scores today's features
# against old timings): the 106 problems of the set's files whose geometry the shipped model
# never trained on (`unseen_{fwd,dgrad,wgrad}.txt`, taken from the files of
# results/h200/s28/retrain.md's command (a)), whole pools and cuDNN. Afterwards, here:
#   gconv validate --model models/h200 --misses --oracle $R/unseen_*.csv.gz
# Build and carry as call a (add these problems to the cache:
#   for d in fwd dgrad wgrad; do GCONV_CACHE_DIR=target/gc target/release/gconv cache build --problems results/h100/s35/unseen_$d.txt --direction $d; done)
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s35/call_e.sh; cd $OUT && tar czf e.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
timeout 220 $B bench --problems results/h100/s35/unseen_dgrad.txt --direction dgrad --vs cudnn --output $R/unseen_dgrad.csv --batch-size 200 --workers 16 > $R/unseen_dgrad.log 2>&1; st bench unseen dgrad
timeout 160 $B bench --problems results/h100/s35/unseen_fwd.txt --direction fwd --vs cudnn --output $R/unseen_fwd.csv --batch-size 200 --workers 16 > $R/unseen_fwd.log 2>&1; st bench unseen fwd
timeout $(( 580 - SECONDS )) $B bench --problems results/h100/s35/unseen_wgrad.txt --direction wgrad --vs cudnn --output $R/unseen_wgrad.csv --batch-size 200 --workers 16 > $R/unseen_wgrad.log 2>&1; st bench unseen wgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
