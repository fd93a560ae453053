# Session 24, call a: the three depth-streaming members now in the direct tensor-core pool
# (forward and backward data): the GPU matrix over them, then the shipped decisions re-tuned
# (a pool change makes every forward and backward-data entry stale): the zoo over the model's
# first 10 (it ranks the forward zoo 3D layer's best streaming member 9th), the real client's grouped layers over its first 16; then fixed split degrees of
# the backward-weight tiles on the two zoo keys cuDNN still wins (C/G 128 g2, C/G 32 7x7).
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s24/call_a.sh; cd $OUT && tar czf a.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s24
SECONDS=0
for d in fwd dgrad; do
  timeout 60 $B selftest --gpu --direction $d --kernels _s3_v16 > $R/selftest_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_$d.log
done
cp models/h200/decisions.json $R/decisions.json
for d in dgrad fwd; do
  timeout 150 $B tune --problems model_zoo_$d --top 10 --vs cudnn --decisions $R/decisions.json --output $R/tune10_$d.csv --batch-size 200 > $R/tune10_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/tune10_$d.log
done
for d in dgrad fwd; do
  timeout 90 $B tune --problems results/h200/s20/rc_grouped_$d.txt --top 16 --vs cudnn --decisions $R/decisions.json --output $R/tune16_rc_$d.csv --batch-size 200 > $R/tune16_rc_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/tune16_rc_$d.log
done
for f in wgmma mma direct; do
  left=$(( (570 - SECONDS) / 2 )); [ $f = direct ] && left=$(( 570 - SECONDS ))
  A=""; [ $f = wgmma ] && A="--arch sm_90a"
  timeout $left $B sweep --variant bwd_weight $A --problems $S/wgrad_split.txt --config $S/wgrad_split_$f.json --vs cudnn --output $R/split_$f.csv --batch-size 200 --workers 16 > $R/split_$f.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/split_$f.log
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
