# Session 28 call a: what the split reduction's second launch costs. For each zoo wgrad key,
# its best pool member of session 26's bench (split_ab.txt, every one splits) timed by
# `gconv run` twice per binary: main, and a scratch build of main whose runtime skips every
# `_reduce` launch when GCONV_HACK_SKIP_REDUCE is set (wrong dW, timing only; not committed).
#   carry ["target/carry/bins.tar.xz", "target/carry/noreduce.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && tar xJf target/carry/noreduce.tar.xz && (timeout 500 bash results/h200/s28/call_a.sh; cd $OUT && tar czf a.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; H=target/noreduce/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
while read -r p k; do
  for rep in 1 2; do
    a=$($B run --backend cuda --problem $p --kernel $k --iters 20 2>&1 | tr '\n' ' ')
    b=$(GCONV_HACK_SKIP_REDUCE=1 $H run --backend cuda --problem $p --kernel $k --iters 20 2>&1 | tr '\n' ' ')
    echo "$p $k rep=$rep | main: $a | noreduce: $b" >> $R/split_ab.log
  done
  echo "$p ${SECONDS}s" >> $R/progress.log
done < results/h200/s28/split_ab.txt
