# For the next session (not run in session 26): the rows that pooling the halo path needs. The
# four proposed halo tiles per direction (halo_pool_{dgrad,fwd}.json with halo_pool.filter) over
# the problems of the oracle shards they can run — the training shards (0-2 of 8) and the
# validation shard (3 of 8) of forward_2d and bwd_data_2d, and the 1D sets — and over the zoo,
# every row verified, cuDNN in the same run. The gate refuses the halo tiles on every problem
# they cannot run (stride, 3D, channel blocks), so the sweeps are short. Then: the tiles into
# igemm/pool.rs, retrain with these files added (models/h200/README.md), validate on shard 3,
# re-bless auto_choices, re-tune the fwd and dgrad decision entries, re-bench the zoo.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s26/next_halo_pool.sh; cd $OUT && tar czf n.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s26
F=$(cat $S/halo_pool.filter)
SECONDS=0
for v in "bwd_data dgrad" "forward fwd"; do
  set -- $v
  for I in 0 1 2 3; do
    timeout 120 $B sweep --variant $1 --arch sm_90a --problems ${1}_2d --shard $I/8 --config $S/halo_pool_$2.json \
      --filter "$F" --vs cudnn --output $R/halo_${2}_2d.csv --batch-size 200 --workers 16 >> $R/halo_${2}.log 2>&1
    echo "$1 shard $I rc=$? ${SECONDS}s" >> $R/halo_${2}.log
  done
  timeout 60 $B sweep --variant $1 --arch sm_90a --problems ${1}_1d --config $S/halo_pool_$2.json --filter "$F" \
    --vs cudnn --output $R/halo_${2}_1d.csv --batch-size 200 --workers 16 >> $R/halo_${2}.log 2>&1
  timeout 60 $B sweep --variant $1 --arch sm_90a --problems model_zoo_$2 --config $S/halo_pool_$2.json --filter "$F" \
    --vs cudnn --output $R/halo_${2}_zoo.csv --batch-size 200 --workers 16 >> $R/halo_${2}.log 2>&1
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
