# Session 28 call d: the split reduction's `_reduce` with 4 elements per thread (one 16-byte
# load per plane; the same additions in the same order, so the same bits) against main before
# it (target/base/gconv): the GPU wgrad matrix, then each zoo wgrad key's best member of
# session 26's bench (split_ab.txt) timed by both binaries, then the zoo wgrad bench.
#   carry ["target/carry/bins.tar.xz", "target/carry/base.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && tar xJf target/carry/base.tar.xz && (timeout 590 bash results/h200/s28/call_d.sh; cd $OUT && tar czf d.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; A=target/base/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
timeout 300 $B selftest --gpu --direction wgrad > $R/selftest_wgrad.log 2>&1
echo "selftest rc=$? ${SECONDS}s" >> $R/progress.log
while read -r p k; do
  v=$($B run --backend cuda --problem $p --kernel $k --iters 20 --verify 2>&1 | tr '\n' ' ')
  echo "$p $k | verify: $v" >> $R/verify.log
  for rep in 1 2; do
    a=$($A run --backend cuda --problem $p --kernel $k --iters 20 2>&1 | grep '^time' | tr '\n' ' ')
    b=$($B run --backend cuda --problem $p --kernel $k --iters 20 2>&1 | grep '^time' | tr '\n' ' ')
    echo "$p $k rep=$rep | base: $a | vec4: $b" >> $R/ab.log
  done
done < results/h200/s28/split_ab.txt
echo "ab ${SECONDS}s" >> $R/progress.log
timeout $(( 575 - SECONDS )) $B bench --problems model_zoo --direction wgrad --vs cudnn \
  --batch-size 200 --workers 16 --output $R/bench_wgrad.csv > $R/bench_wgrad.log 2>&1
echo "bench rc=$? ${SECONDS}s" >> $R/progress.log
gzip -f $R/*.csv $R/*.messages.jsonl 2>/dev/null; true
