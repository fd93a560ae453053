# Session 22, not run (the device budget was spent): the register-pipelined backward-weight
# space (stages 3, the rule's split, 8 warps, one M slice, tile_n <= 48, gm <= 2) over 8
# in-scope grouped layers (wgrad_s3_layers.txt): is there a pipelined member better than the
# pool's four? (About 2,500 rows: 3–4 minutes.) Then every backward-weight pool member on the
# real client's grouped layers (`gconv bench`), so that they cover the pool and can enter the
# model's training data (their rows so far are only tune's top 5 or 8).
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s22/next_call.sh; cd $OUT && tar czf n.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s22
SECONDS=0
timeout 300 $B sweep --variant bwd_weight --problems $S/wgrad_s3_layers.txt --config configs/traits/bwd_weight_direct_mma_bf16.json \
  --filter "stages == 3 && split_k == 0 && warps_m == 8 && vec_b == 1 && tile_n <= 48 && group_merge <= 2" \
  --output $R/s3_space.csv --batch-size 200 --workers 16 > $R/s3_space.log 2>&1
echo "rc=$? ${SECONDS}s" >> $R/s3_space.log; tail -3 $R/s3_space.log
timeout $(( 580 - SECONDS )) $B bench --problems results/h200/s20/rc_grouped_wgrad.txt --direction wgrad --vs cudnn \
  --output $R/rc_wgrad_bench.csv > $R/rc_wgrad_bench.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/rc_wgrad_bench.log
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
