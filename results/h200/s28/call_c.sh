# Session 28 call c: the fused split reduction of the direct backward-weight kernels
# (split_reduce.cu, GCONV_SPLIT_FUSED) against main before it (target/base/gconv).
#   carry ["target/carry/bins.tar.xz", "target/carry/base.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && tar xJf target/carry/base.tar.xz && (timeout 580 bash results/h200/s28/call_c.sh; cd $OUT && tar czf c.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; A=target/base/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
timeout 240 $B selftest --gpu --direction wgrad --kernels direct_wgrad > $R/selftest_wgrad_direct.log 2>&1
echo "selftest rc=$? ${SECONDS}s" >> $R/progress.log
grep direct_wgrad results/h200/s28/split_ab.txt > $R/keys.txt
while read -r p k; do
  v=$($B run --backend cuda --problem $p --kernel $k --iters 20 --verify 2>&1 | tr '\n' ' ')
  echo "$p $k | verify: $v" >> $R/verify.log
  for rep in 1 2; do
    a=$($A run --backend cuda --problem $p --kernel $k --iters 20 2>&1 | grep '^time' | tr '\n' ' ')
    b=$($B run --backend cuda --problem $p --kernel $k --iters 20 2>&1 | grep '^time' | tr '\n' ' ')
    echo "$p $k rep=$rep | base: $a | fused: $b" >> $R/ab.log
  done
  echo "$p ${SECONDS}s" >> $R/progress.log
done < $R/keys.txt
