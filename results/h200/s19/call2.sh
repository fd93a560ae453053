# Session 19, call 2: session 18's next_call_cluster.sh (see there): branch wip/cluster-reduce's
# split-K mode `c` against main's deterministic planes on the zoo wgrad slab kernels, then the
# branch's wgrad selftest. Only the pairs whose kernel runs at most 32 slabs: mode c caps a
# cluster at 8, so a layer that needs 64-256 slabs to fill the GPU is not its case.
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s19/call2.sh; ...)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; C=target/cluster-reduce/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
awk '($2 ~ /^direct_wgrad_.*_simt_gen$/ || $2 ~ /^direct_wgrad_.*_s2_v[0-9]+x1_gm1_sk[0-9]+d_mma_gen$/) && $2 !~ /_sk1d_/ { if (match($2, /_sk[0-9]+d_/) && substr($2, RSTART + 3, RLENGTH - 5) + 0 <= 32) print }' results/h200/s18/call2/pairs.txt > $R/pairs.txt
i=0
while read p k; do
  [ $SECONDS -lt 390 ] || break
  kc=$(echo $k | sed -E 's/_sk[0-9]+d_/_sk0c_/')
  i=$((i+1))
  if [ $((i % 2)) = 0 ]; then order="B C"; else order="C B"; fi
  for b in $order; do
    if [ $b = B ]; then bin=$B; kk=$k; v=""; else bin=$C; kk=$kc; v=--verify; fi
    t=$(timeout 30 $bin run --backend cuda --problem $p --kernel $kk --iters 30 $v 2>&1 | tee -a $R/runs_$b.log | awk '/^kernel/ {print $2} /^time/ {print $2} /^PASS|^FAIL|^error/ {print $1}' | tr '\n' ' ')
    echo "$b $p $t" >> $R/ab.txt
  done
done < $R/pairs.txt
tar czf $OUT/call2.tgz -C $OUT r
timeout $((585 - SECONDS)) $C selftest --gpu --direction wgrad > $R/selftest_wgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_wgrad.log
tar czf $OUT/call2.tgz -C $OUT r && rm -rf $R
