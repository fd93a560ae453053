# Session 30, call b (not run in session 30: no machine was lent; for the next session).
# The banded depthwise forward kernel (and backward data on its dual) with packed output
# stores and group-shifted X planes (c8a3942) against the parent of
# session 30's banded commits (177342e): both binaries sweep the forward and backward-data
# banded trait configs with 4 or 8 warps over the zoo's seven 5x5/7x7 depthwise layers of each
# direction, every row verified, then the direct pool on the same layers in the same lease
# (`bench --family direct`), the CUDA-core members it has to beat (session 21: banded slower
# than them on all seven). results/h200/s30/ab_banded.py DIR fwd|dgrad compares.
#   scripts/h200.sh 177342e; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s30/call_b.sh; cd $OUT && tar czf b.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R; S=results/h200/s21
SECONDS=0
for d in fwd dgrad; do
  v=$([ $d = fwd ] && echo forward || echo bwd_data)
  sed "s/^fwd_/${d}_/" $S/dw_fwd_large.txt > $R/layers_$d.txt
  for side in base new; do
    b=target/release/gconv; [ $side = base ] && b=target/177342e/gconv
    timeout 100 $b sweep --variant $v --problems $R/layers_$d.txt --config configs/traits/${v}_banded_bf16.json \
      --filter "warps_m >= 4" --output $R/${d}_${side}_1.csv --batch-size 200 > $R/${d}_${side}_1.log 2>&1
    echo "$d $side rc=$? ${SECONDS}s" >> $R/progress.log
  done
done
for d in fwd dgrad; do
  timeout 80 target/release/gconv bench --problems $R/layers_$d.txt --direction $d --family direct \
    --output $R/pool_$d.csv --batch-size 200 --workers 16 > $R/pool_$d.log 2>&1
  echo "pool $d rc=$? ${SECONDS}s" >> $R/progress.log
done
gzip -f $R/*.csv $R/*.messages.jsonl 2>/dev/null; true
