# Session 21, call b: the banded tensor-core depthwise forward / backward-data kernel
# (direct::fwd_banded) swept over the zoo's 12 depthwise stride-1 layers of each direction
# (every row verified against the reference, cuDNN timed in the same run), then the direct
# pool benched on the same layers for a same-lease comparison.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s21/call_b.sh; cd $OUT && tar czf b.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s21
SECONDS=0
for d in fwd dgrad; do
  v=$([ $d = fwd ] && echo forward || echo bwd_data)
  timeout 170 $B sweep --variant $v --problems $S/dw_$d.txt --config configs/traits/${v}_banded_bf16.json --vs cudnn --output $R/banded_$d.csv --batch-size 200 --workers 16 > $R/banded_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/banded_$d.log
done
for d in fwd dgrad; do
  left=$(( (570 - SECONDS) / 2 )); [ $d = dgrad ] && left=$(( 570 - SECONDS ))
  timeout $left $B bench --problems $S/dw_$d.txt --direction $d --family direct --output $R/pool_$d.csv --batch-size 200 --workers 16 > $R/pool_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/pool_$d.log
done
gzip -f $R/*.messages.jsonl 2>/dev/null; true
