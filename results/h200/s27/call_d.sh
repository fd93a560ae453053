# Session 27, call d: A/B of the halo path's per-block staging (each 64-channel block's halo in
# the copy group of its first reader, k-tile cb, instead of every block in k-tile 0's group).
# target/base/gconv: the binary of bcdb8b5 (every block before k-tile 0); target/release/gconv:
# the change. The pool's four halo tiles (s26/halo_pool_*.json + halo_pool.filter) over
# session 26's 50 registry layers per direction, no baseline, every row verified; base, new,
# new, base.
#   carry ["target/carry/ab.tar.xz"] (both binaries: target/release/gconv stripped, target/base/gconv)
#   tar xJf target/carry/ab.tar.xz && (timeout 480 bash results/h200/s27/call_d.sh; cd $OUT && tar czf d.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R; S=results/h200/s26
SECONDS=0
F=$(cat $S/halo_pool.filter)
for v in "bwd_data dgrad" "forward fwd"; do
  set -- $v
  for run in base:1 new:1 new:2 base:2; do
    b=${run%:*}; i=${run#*:}
    B=target/release/gconv; [ $b = base ] && B=target/base/gconv
    GCONV_CACHE_DIR=/tmp/gc_$b timeout 100 $B sweep --variant $1 --arch sm_90a --problems $S/${2}_halo_registry.txt \
      --config $S/halo_pool_$2.json --filter "$F" --output $R/${2}_${b}_$i.csv --batch-size 200 --workers 16 \
      > $R/${2}_${b}_$i.log 2>&1
    echo "$2 $b $i rc=$? ${SECONDS}s" | tee -a $R/progress.log
  done
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
