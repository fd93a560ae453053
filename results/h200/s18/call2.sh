# Session 18, call 2: programmatic dependent launch of the split reductions (branch
# wip/pdl-desc = main at d13ae88 + the PDL commit) against main, in one lease.
#   scripts/h200.sh wip/pdl-desc; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 585 bash results/h200/s18/call2.sh; ...)
# 1. the GPU selftest of every backward-weight pool member with the PDL binary (split
#    reductions, determinism);
# 2. the two fastest gconv kernels of each zoo backward-weight key (session 17's bench), each
#    run by both binaries alternately with `gconv run --iters 30` (the PDL one verifying).
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
N=target/release/gconv; P=target/pdl-desc/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
timeout 210 $P selftest --gpu --direction wgrad > $R/selftest_wgrad_pdl.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_wgrad_pdl.log
Z=results/h200/s17/call3/zoo_wgrad.csv.gz
awk -F, 'NR>1 && $24=="ok" && $1 !~ /^cudnn/ {print $2, $25, $1}' $Z | sort -k1,1 -k2,2g | awk '{n[$1]++; if (n[$1] <= 2) print $1, $3}' > $R/pairs.txt
i=0
while read p k; do
  [ $SECONDS -lt 570 ] || break
  i=$((i+1))
  if [ $((i % 2)) = 0 ]; then order="P N"; else order="N P"; fi
  for b in $order; do
    eval bin=\$$b
    v=""; [ $b = P ] && v=--verify
    t=$(timeout 30 $bin run --backend cuda --problem $p --kernel $k --iters 30 $v 2>&1 | tee -a $R/runs_$b.log | awk '/^time/ {print $2} /^PASS|^FAIL/ {print $1}' | tr '\n' ' ')
    echo "$b $p $k $t" >> $R/ab.txt
  done
done < $R/pairs.txt
echo "total ${SECONDS}s" >> $R/ab.txt
tar czf $OUT/call2.tgz -C $OUT r && rm -rf $R
