# For the next session: (1) the 112-pixel direct tensor-core space of call c over 2D C/G 8-16
# layers, forward and backward data (cg8_2d.txt; the model picks the new members on some such
# layers that were never measured with them); (2) the direct tensor-core wgrad space on the 3D
# C/G 8 zoo layer (77.7 us, 1.21x cuDNN; #13 asks >= 4x on the 3D keys), sk0 (the rule) only.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 560 bash results/h200/s19/next_call.sh; ...)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s19
SECONDS=0
for d in fwd dgrad; do
  v=$([ $d = fwd ] && echo forward || echo bwd_data)
  sed "s/^fwd_/${d}_/" $S/cg8_2d.txt > $R/cg8_2d_$d.txt
  timeout 170 $B sweep --variant $v --problems $R/cg8_2d_$d.txt --config $S/${d}_3d_cg8.json --filter 'tile_m == 112 || tile_m == 224' --vs cudnn --output $R/${d}_cg8_2d.csv --batch-size 200 --workers 16 > $R/${d}_cg8_2d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/${d}_cg8_2d.log
  tar czf $OUT/next.tgz -C $OUT r
done
timeout $((550 - SECONDS)) $B sweep --variant bwd_weight --problems wgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1 --config configs/traits/bwd_weight_direct_mma_bf16.json --filter 'split_k == 0 && group_merge == 1 && warps_m == 8 && (tile_n == 8 || tile_n == 16 || tile_n == 32)' --vs cudnn --output $R/wgrad_3d_cg8.csv --batch-size 200 --workers 16 > $R/wgrad_3d_cg8.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/wgrad_3d_cg8.log
gzip -f $R/*.messages.jsonl 2>/dev/null
tar czf $OUT/next.tgz -C $OUT r && rm -rf $R
