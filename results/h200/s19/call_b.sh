# Session 19, the second call (after call_a.sh): branch wip/cluster-reduce's wgrad selftest
# (every pool member on the branch's launch path), then session 18's call 3 (the C/G 32
# direct tensor-core wgrad kernels at fixed split degrees 1-16).
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s19/call_b.sh; ...)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; C=target/cluster-reduce/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s18
SECONDS=0
timeout 380 $C selftest --gpu --direction wgrad > $R/selftest_wgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_wgrad.log
tar czf $OUT/call_b.tgz -C $OUT r
F='(tile_m == 64 && tile_k == 8 && tile_n == 32 && warps_m == 8 && vec_a == 3) || (tile_m == 112 && tile_k == 16 && tile_n == 32 && warps_m == 8 && vec_a == 3) || (tile_m == 128 && tile_n == 16 && tile_k == 16 && warps_m == 4 && vec_a == 2)'
left=$((575 - SECONDS))
[ $left -gt 40 ] && timeout $left $B sweep --variant bwd_weight --problems $S/wgrad_cg32.txt --config $S/wgrad_mma_split.json --filter "$F" --vs cudnn --output $R/cg32_split.csv --batch-size 200 --workers 16 > $R/cg32_split.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/cg32_split.log
gzip -f $R/*.messages.jsonl 2>/dev/null
tar czf $OUT/call_b.tgz -C $OUT r && rm -rf $R
