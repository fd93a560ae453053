# For the next session (not run in session 28: no device was lent after call d): the cluster
# split of the streaming depthwise wgrad kernel (`sk{n}c`, ARCHITECTURE.md "Name grammar";
# host emulation and NVRTC only so far).
#   1. correctness on the GPU: `gconv sweep` of configs/traits/bwd_weight_stream_cluster_bf16.json
#      (216 configs: stream tiles at 2, 4, 8 slabs, each as d and as c; every row verified)
#      over the zoo's 16 depthwise wgrad keys (zoo_dw_wgrad.txt);
#   2. the same tile and slab count as d and as c, alternating (cluster_ab.txt: session 26's
#      best streaming member of each depthwise key at 2, 4 and 8 slabs), `gconv run --verify`.
# What decides whether c joins the pool: c faster than d at the same tile and slabs, and the
# best c near the best pool member of call d's bench (results/h200/s28/call_d/bench_wgrad.log).
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s28/next_cluster.sh; cd $OUT && tar czf n.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; S=results/h200/s28; mkdir -p $R
SECONDS=0
timeout 300 $B sweep --variant bwd_weight --arch sm_90 --problems $S/zoo_dw_wgrad.txt \
  --config configs/traits/bwd_weight_stream_cluster_bf16.json --output $R/sweep_cluster.csv \
  > $R/sweep_cluster.log 2>&1
echo "sweep rc=$? ${SECONDS}s" >> $R/progress.log
for rep in 1 2; do
  while read -r p k; do
    v=$($B run --backend cuda --problem $p --kernel $k --iters 20 $([ $rep = 1 ] && echo --verify) 2>&1 | tr '\n' ' ')
    echo "$p $k rep=$rep | $v" >> $R/cluster_ab.log
  done < $S/cluster_ab.txt
  echo "ab rep=$rep ${SECONDS}s" >> $R/progress.log
done
gzip -f $R/*.csv $R/*.messages.jsonl 2>/dev/null; true
