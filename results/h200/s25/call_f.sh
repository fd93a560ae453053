# Session 25, call f: training rows from the model families of session 24's new models, on
# geometries disjoint from call c's validation keys: `model_keys.py --meta --sample 24 --seed 1
# --exclude ../../results/h200/s25/call_c/keys_{fwd,dgrad,wgrad}.txt` (recorded here on the
# meta device; the wgrad list cut to 12), then `gconv bench` of every pool member and cuDNN.
#   carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 280 bash results/h200/s25/call_f.sh; cd $OUT && tar czf f.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc; unset LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
SECONDS=0
B=target/release/gconv
K=results/h200/s25/call_f
timeout 85 $B bench --problems $K/train_keys_fwd.txt --direction fwd --vs cudnn --batch-size 200 --output $R/train_fwd.csv > $R/train_fwd.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/train_fwd.log
timeout 70 $B bench --problems $K/train_keys_dgrad.txt --direction dgrad --vs cudnn --batch-size 200 --output $R/train_dgrad.csv > $R/train_dgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/train_dgrad.log
left=$(( 268 - SECONDS ))
timeout $left $B bench --problems $K/train_keys_wgrad.txt --direction wgrad --vs cudnn --batch-size 200 --output $R/train_wgrad.csv > $R/train_wgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/train_wgrad.log
gzip -f $R/*.csv 2>/dev/null; rm -f $R/*.messages.jsonl; true
