# For the next session (not run yet): the 3D oracle shards completed with the depth-streaming
# pool members, so that the next `gconv train` sees rows of them (today the model ranks them by
# features alone). `--resume` skips every (kernel, problem) pair a shard already has, so each
# problem gains only the new members' rows (and the cut dgrad shard its missing problems).
#   scripts/h200.sh; gunzip copies of the two shards into target/oracle/ (carried):
#     mkdir -p target/oracle && for f in fwd_3d dgrad_3d; do
#       zcat data/oracle/h200/$f.shard-0-of-4.csv.gz > target/oracle/$f.shard-0-of-4.csv; done
#   carry ["target/carry/bins.tar.xz", "target/oracle"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s24/next_3d.sh; cd $OUT && tar czf n.tgz r; true)
# Then gzip the two CSVs back over data/oracle/h200/ and retrain (models/h200/README.md).
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
cp target/oracle/fwd_3d.shard-0-of-4.csv target/oracle/dgrad_3d.shard-0-of-4.csv $R/
timeout 200 $B bench --problems forward_3d --direction fwd --vs cudnn --shard 0/4 --batch-size 200 --resume --output $R/fwd_3d.shard-0-of-4.csv > $R/fwd_3d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/fwd_3d.log
left=$(( 575 - SECONDS ))
timeout $left $B bench --problems bwd_data_3d --direction dgrad --vs cudnn --shard 0/4 --batch-size 200 --resume --output $R/dgrad_3d.shard-0-of-4.csv > $R/dgrad_3d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/dgrad_3d.log
gzip -f $R/*.csv $R/*.messages.jsonl 2>/dev/null; true
