# Session 27, call e: call d's A/B again after its finding (issuing each block past the
# prologue with its own k-tile ran slower at 4+ blocks): the blocks past the prologue's groups
# now join its last group; blocks 0..PF-1 keep their own. target/base/gconv: bcdb8b5;
# target/release/gconv: the change. One run each (dgrad: base, new; fwd: new, base).
#   carry ["target/carry/ab.tar.xz"] (both binaries: target/release/gconv stripped, target/base/gconv)
#   tar xJf target/carry/ab.tar.xz && (timeout 180 bash results/h200/s27/call_e.sh; cd $OUT && tar czf e.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R; S=results/h200/s26
SECONDS=0
F=$(cat $S/halo_pool.filter)
for v in "bwd_data dgrad" "forward fwd"; do
  set -- $v
  order="base:1 new:1"; [ $2 = fwd ] && order="new:1 base:1"
  for run in $order; do
    b=${run%:*}; i=${run#*:}
    B=target/release/gconv; [ $b = base ] && B=target/base/gconv
    GCONV_CACHE_DIR=/tmp/gc_$b timeout 100 $B sweep --variant $1 --arch sm_90a --problems $S/${2}_halo_registry.txt \
      --config $S/halo_pool_$2.json --filter "$F" --output $R/${2}_${b}_$i.csv --batch-size 200 --workers 16 \
      > $R/${2}_${b}_$i.log 2>&1
    echo "$2 $b $i rc=$? ${SECONDS}s" | tee -a $R/progress.log
  done
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
