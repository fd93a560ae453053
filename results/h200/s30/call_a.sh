# Session 30, call a (not run in session 30: no machine was lent; for the next session).
# The banded depthwise wgrad kernel with its staging stores free of bank conflicts (d356b0f:
# the planes of each group of 8 channels `banded::plane_group_shift` apart) against its
# parent 177342e, which stored the VECS = BN/8 channel vectors of a pixel into one bank (2-way
# at 16 channels, 4-way at 32). Both binaries sweep every banded config of the trait file with
# the slab rule and 4 or 8 warps over the five 5x5/7x7 zoo depthwise layers, twice, alternating;
# every row verified. tile_n 8 configs did not change (one vector): their new/base ratio is
# the run's noise. Then `compare` pairs the runs; results/h200/s30/ab_banded.py sets them side
# by side per tile_n and per layer, and against the pool's best of the zoo bench.
#   scripts/h200.sh 177342e   (packs target/177342e/gconv beside target/release/gconv)
#   carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s30/call_a.sh; cd $OUT && tar czf a.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
SECONDS=0
for rep in 1 2; do
  for side in base new; do
    b=target/release/gconv; [ $side = base ] && b=target/177342e/gconv
    timeout 130 $b sweep --variant bwd_weight --problems configs/problems/wgrad_depthwise_large.txt \
      --config configs/traits/bwd_weight_banded_bf16.json --filter "split_k == 0 && warps_m >= 4" \
      --output $R/banded_${side}_${rep}.csv --batch-size 200 > $R/banded_${side}_${rep}.log 2>&1
    echo "$side rep=$rep rc=$? ${SECONDS}s" >> $R/progress.log
  done
done
gzip -f $R/*.csv $R/*.messages.jsonl 2>/dev/null; true
