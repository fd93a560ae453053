# Session 18, call 3: the zoo backward-weight bench with main as merged this session
# (wgmma descriptors + leaner wgrad loaders + PDL split reductions), cuDNN in the same run.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 500 bash results/h200/s18/call3.sh; ...)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
timeout 420 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/zoo_wgrad.csv --batch-size 200 --workers 16 > $R/zoo_wgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/zoo_wgrad.log
gzip -f $R/*.messages.jsonl 2>/dev/null
tar czf $OUT/call3.tgz -C $OUT r && rm -rf $R
