# Session 30, call e (not run in session 30: for the next session, after call d).
# Backward weight of the TMA-fed kernels (configs/traits/bwd_weight_tma_bf16.json: wgmmatma,
# wgmmaws and wgmma at the rule's split-K over the 16 pointwise layers as wgrad problems, every
# row verified, cuDNN in the same run), then the pools (`bench`: best-in-pool and auto against
# cuDNN) on the 16 layers in the three directions, for the same-lease comparison with call d.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s30/call_e.sh; cd $OUT && tar czf e.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s30
SECONDS=0
for d in dgrad wgrad; do sed "s/^fwd_/${d}_/" $S/pointwise_fwd.txt > $R/pointwise_$d.txt; done
cp $S/pointwise_fwd.txt $R/pointwise_fwd.txt
timeout 240 $B sweep --variant bwd_weight --arch sm_90a --problems $R/pointwise_wgrad.txt \
  --config configs/traits/bwd_weight_tma_bf16.json --filter "fast_path == pw" --vs cudnn --output $R/tma_wgrad.csv --batch-size 200 > $R/tma_wgrad.log 2>&1
echo "sweep wgrad rc=$? ${SECONDS}s" >> $R/progress.log
for m in wgmmaws wgmma; do $B report $R/tma_wgrad.csv --pair math=$m,wgmmatma > $R/pair_wgrad_$m.txt 2>&1; done
for d in fwd dgrad wgrad; do
  timeout 100 $B bench --problems $R/pointwise_$d.txt --direction $d --vs cudnn --output $R/bench_$d.csv \
    --batch-size 200 --workers 16 > $R/bench_$d.log 2>&1
  echo "bench $d rc=$? ${SECONDS}s" >> $R/progress.log
done
gzip -f $R/*.csv $R/*.messages.jsonl 2>/dev/null; true
