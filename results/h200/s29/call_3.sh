# Session 29, call 3: the igemm cluster split (sk{n}c) against its two-launch twin (sk{n}d).
# igemm_cluster_ab.txt, first 88 lines: the same tile and degree, on the 7 zoo wgrad keys whose
# best igemm member is within 1.5x of the key's best (the 4 best igemm members of each key, at
# their degree, or at 4 and 8 where theirs is above 8); then every zoo wgrad key's 4 best igemm
# members with the degree left to the rule, sk0d (up to 64 slices) against sk0c (clamped to
# 8). Rep 1 verified against the CPU f64 reference, both reps timed (gconv run: CUDA graph,
# median of 20 rounds).
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s29/call_3.sh; cd $OUT && tar czf c3.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; S=results/h200/s29; mkdir -p $R
SECONDS=0
for rep in 1 2; do
  while read -r p k; do
    v=$(timeout 60 $B run --backend cuda --problem $p --kernel $k --iters 20 $([ $rep = 1 ] && echo --verify) 2>&1 | tr '\n' ' ')
    echo "$p $k rep=$rep | $v" >> $R/igemm_cluster_ab.log
  done < $S/igemm_cluster_ab.txt
  echo "ab rep=$rep ${SECONDS}s" >> $R/progress.log
done
