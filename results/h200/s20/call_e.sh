# Session 20, call e: main with two small-tile tensor-core members in the direct pool (call
# d's stride-2 sweep): the GPU selftest of the two members (forward, backward data), the
# forward and backward-data zoo decisions re-tuned for the grown pool, then the real
# client's grouped layers tuned into the same decision cache (all three directions).
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 540 bash results/h200/s20/call_e.sh; cd $OUT && tar czf e.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s20
SECONDS=0
for d in fwd dgrad; do for k in _t64x64x8_w8x1_s1_v16x2_ _t64x32x16_w8x1_s1_v16x2_; do
  timeout 40 $B selftest --gpu --direction $d --kernels $k > $R/selftest_${d}$k.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_${d}$k.log
done; done
cp models/h200/decisions.json $R/decisions.json
for d in dgrad fwd; do
  timeout 150 $B tune --problems model_zoo_$d --top 5 --vs cudnn --decisions $R/decisions.json --output $R/tune_$d.csv --batch-size 200 > $R/tune_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/tune_$d.log
done
for d in fwd dgrad wgrad; do
  left=$(( (530 - SECONDS) / 2 )); [ $d = wgrad ] && left=$(( 530 - SECONDS ))
  timeout $left $B tune --problems $S/rc_grouped_$d.txt --top 5 --vs cudnn --decisions $R/decisions.json --output $R/tune_rc_$d.csv --batch-size 200 > $R/tune_rc_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/tune_rc_$d.log
done
gzip -f $R/*.messages.jsonl 2>/dev/null; true
