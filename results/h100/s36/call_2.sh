# Session 36, call 2: session 35's call e, issue #14's unseen validation set (106 problems whose
# geometry the shipped model never trained on, results/h100/s35/unseen_*.txt) measured again
# with today's pools, whole pools and cuDNN. Afterwards, here:
#   gconv validate --model models/h200 --misses --oracle $R/unseen_*.csv.gz
# Cache: call 1's plus, for d in fwd dgrad wgrad,
#   GCONV_CACHE_DIR=target/gc target/release/gconv cache build --problems results/h100/s35/unseen_$d.txt --direction $d
# carry ["target/carry/bins.tar.xz", "target/carry/gc2.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && tar xJf target/carry/gc2.tar.xz -C /tmp && (timeout 590 bash results/h100/s36/call_2.sh; cd $OUT && tar czf r2.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
timeout 220 $B bench --problems results/h100/s35/unseen_dgrad.txt --direction dgrad --vs cudnn --output $R/unseen_dgrad.csv --batch-size 200 --workers 16 > $R/unseen_dgrad.log 2>&1; st bench unseen dgrad
timeout 160 $B bench --problems results/h100/s35/unseen_fwd.txt --direction fwd --vs cudnn --output $R/unseen_fwd.csv --batch-size 200 --workers 16 > $R/unseen_fwd.log 2>&1; st bench unseen fwd
timeout $(( 585 - SECONDS )) $B bench --problems results/h100/s35/unseen_wgrad.txt --direction wgrad --vs cudnn --output $R/unseen_wgrad.csv --batch-size 200 --workers 16 > $R/unseen_wgrad.log 2>&1; st bench unseen wgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
