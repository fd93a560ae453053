# For the next session: branch wip/cluster-reduce (split-K mode `c`, the slab kernels' split
# reduced through a thread-block cluster, one launch) against main, on the GPU for the first
# time. Pack both binaries with `scripts/h200.sh wip/cluster-reduce`, carry
# ["target/carry/bins.tar.xz"] and run
#   tar xJf target/carry/bins.tar.xz && (timeout 560 bash results/h200/s18/next_call_cluster.sh; ...)
# Every zoo backward-weight key whose fastest gconv kernels (session 18 call 2's pairs) include
# a direct slab kernel with P > 1 slabs (CUDA cores, or tensor cores without M slices or merged
# groups): that kernel with its deterministic planes
# (main) against the same config with `sk0c` (the branch, verified), alternately, with
# `gconv run --iters 30`; then the branch's wgrad selftest (the pool, unchanged, on the
# branch's launch path).
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; C=target/cluster-reduce/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
awk '($2 ~ /^direct_wgrad_.*_simt_gen$/ || $2 ~ /^direct_wgrad_.*_s2_v[0-9]+x1_gm1_sk[0-9]+d_mma_gen$/) && $2 !~ /_sk1d_/' results/h200/s18/call2/pairs.txt > $R/pairs.txt
i=0
while read p k; do
  [ $SECONDS -lt 380 ] || break
  kc=$(echo $k | sed -E 's/_sk[0-9]+d_/_sk0c_/')
  i=$((i+1))
  if [ $((i % 2)) = 0 ]; then order="B C"; else order="C B"; fi
  for b in $order; do
    if [ $b = B ]; then bin=$B; kk=$k; v=""; else bin=$C; kk=$kc; v=--verify; fi
    t=$(timeout 30 $bin run --backend cuda --problem $p --kernel $kk --iters 30 $v 2>&1 | tee -a $R/runs_$b.log | awk '/^kernel/ {print $2} /^time/ {print $2} /^PASS|^FAIL|^error/ {print $1}' | tr '\n' ' ')
    echo "$b $p $t" >> $R/ab.txt
  done
done < $R/pairs.txt
timeout 170 $C selftest --gpu --direction wgrad > $R/selftest_wgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_wgrad.log
tar czf $OUT/cluster.tgz -C $OUT r && rm -rf $R
