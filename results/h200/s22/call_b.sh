# Session 22, call b: the software-pipelined direct tensor-core backward-weight kernel
# (branches wip/wgpipe1: launch bounds without a CTA minimum; wip/wgpipe2: at least 2 CTAs per
# SM) against main, alternately, on the 20 (layer, kernel) pairs of wgrad_mma_pairs.txt (each
# backward-weight layer of the shipped decisions whose measured top 5 holds a direct
# tensor-core member: its fastest one). The branches' runs verify against the CPU reference.
#   scripts/h200.sh wip/wgpipe1 wip/wgpipe2; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s22/call_b.sh; cd $OUT && tar czf b.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
SECONDS=0
t() { "$@" 2>&1 | awk '/^time/ {print $2} /^verify/ {v=$0} /^(PASS|FAIL)/ {print $1} /rror/ {print "ERR " $0}' | tr '\n' ' '; }
while read -r p k; do
  a=$(t target/release/gconv run --backend cuda --problem $p --kernel $k --iters 30)
  b=$(t target/wgpipe1/gconv run --backend cuda --problem $p --kernel $k --iters 30 --verify)
  c=$(t target/wgpipe2/gconv run --backend cuda --problem $p --kernel $k --iters 30 --verify)
  a2=$(t target/release/gconv run --backend cuda --problem $p --kernel $k --iters 30)
  echo "$p $k | main $a $a2 | p1 $b | p2 $c | ${SECONDS}s" | tee -a $R/ab.txt
done < results/h200/s22/wgrad_mma_pairs.txt
echo "done ${SECONDS}s"
