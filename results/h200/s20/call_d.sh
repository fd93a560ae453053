# Session 20, call d (binary of call c, stride-phase halo columns): the direct tensor-core
# spaces on the real client's stride-2 grouped layers, forward (fwd_s2.json: channel tiles of
# 16-64, the stride-2 halo being four times the output tile) and backward weight (the
# rule's split, warps 8, 16/32-channel tiles).
#   tar xJf target/carry/bins.tar.xz && (timeout 420 bash results/h200/s20/call_d.sh; cd $OUT && tar czf d.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s20
SECONDS=0
timeout 200 $B sweep --variant forward --problems $S/s2_fwd.txt --config $S/fwd_s2.json --vs cudnn --output $R/fwd_s2.csv --batch-size 200 --workers 16 > $R/fwd_s2.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/fwd_s2.log
timeout $((400 - SECONDS)) $B sweep --variant bwd_weight --problems $S/s2_wgrad.txt --config configs/traits/bwd_weight_direct_mma_bf16.json --filter 'split_k == 0 && group_merge == 1 && warps_m == 8 && (tile_n == 16 || tile_n == 32)' --vs cudnn --output $R/wgrad_s2.csv --batch-size 200 --workers 16 > $R/wgrad_s2.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/wgrad_s2.log
gzip -f $R/*.messages.jsonl 2>/dev/null; true
