# Session 18, call 3: the direct tensor-core wgrad kernels that win the zoo's C/G 32 layers
# at fixed split-K degrees 1-16 (wgrad_mma_split.json, 27 kernels on wgrad_cg32.txt, cuDNN
# timed in the same run): is the one-wave degree (sk8 on the 7x7 layer, whose partial planes
# are 3x its compulsory traffic) too high?
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 200 bash results/h200/s18/call3.sh; ...)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s18
SECONDS=0
F='(tile_m == 64 && tile_k == 8 && tile_n == 32 && warps_m == 8 && vec_a == 3) || (tile_m == 112 && tile_k == 16 && tile_n == 32 && warps_m == 8 && vec_a == 3) || (tile_m == 128 && tile_n == 16 && tile_k == 16 && warps_m == 4 && vec_a == 2)'
timeout 150 $B sweep --variant bwd_weight --problems $S/wgrad_cg32.txt --config $S/wgrad_mma_split.json --filter "$F" --vs cudnn --output $R/cg32_split.csv --batch-size 200 --workers 16 > $R/cg32_split.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/cg32_split.log
gzip -f $R/*.messages.jsonl 2>/dev/null
tar czf $OUT/call3.tgz -C $OUT r && rm -rf $R
