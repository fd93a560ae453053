# Session 28 call e: the fused split reduction without its zeroing launch, as a probe of what
# the zeroing costs (not a design that can ship as it stands: the counters are zeroed once when
# the workspace is allocated, a scratch build's runtime fills workspaces with 0 instead of the
# poison, and the last arrival resets its counter; a caller's uninitialised workspace would
# break it). The scratch build is results/h200/s28/fused_split.diff plus those changes
# (fused_nozero.diff). Base: main before session 28's kernel work (target/base/gconv).
#   carry ["target/carry/base.tar.xz", "target/carry/fz.tar.xz"]
#   tar xJf target/carry/base.tar.xz && tar xJf target/carry/fz.tar.xz && (timeout 300 bash results/h200/s28/call_e.sh; cd $OUT && tar czf e.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
A=target/base/gconv; B=target/fz/gconv; R=$OUT/r; mkdir -p $R
grep direct_wgrad results/h200/s28/split_ab.txt > $R/keys.txt
while read -r p k; do
  v=$($B run --backend cuda --problem $p --kernel $k --iters 20 --verify 2>&1 | tr '\n' ' ')
  echo "$p $k | verify: $v" >> $R/verify.log
  for rep in 1 2; do
    a=$($A run --backend cuda --problem $p --kernel $k --iters 20 2>&1 | grep '^time' | tr '\n' ' ')
    b=$($B run --backend cuda --problem $p --kernel $k --iters 20 2>&1 | grep '^time' | tr '\n' ' ')
    echo "$p $k rep=$rep | base: $a | fz: $b" >> $R/ab.log
  done
done < $R/keys.txt
