# Session 21, call a: issue #14. The decision time on the GPU host's CPU (the example
# `decision_time`, three runs), then two new oracle shards for the selection model: the
# forward and backward-data 2D sets' shard 4 of 8 (never measured before), each under a
# timeout so that a cut shard keeps its finished rows (`--resume` continues it).
#   scripts/h200.sh (packs the example too);
#   carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s21/call_a.sh; cd $OUT && tar czf a.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
lscpu > $R/lscpu.txt 2>&1; nproc >> $R/lscpu.txt
for i in 1 2 3; do
  timeout 40 target/release/examples/decision_time > $R/decision_time_$i.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/decision_time_$i.log
done
timeout 270 $B bench --problems forward_2d --direction fwd --vs cudnn --shard 4/8 --batch-size 200 --output $R/fwd_2d.csv > $R/fwd_2d_4.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/fwd_2d_4.log
left=$(( 575 - SECONDS ))
timeout $left $B bench --problems bwd_data_2d --direction dgrad --vs cudnn --shard 4/8 --batch-size 200 --output $R/dgrad_2d.csv > $R/dgrad_2d_4.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/dgrad_2d_4.log
gzip -f $R/*.messages.jsonl 2>/dev/null; true
