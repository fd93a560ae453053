# Session 19, call 3: the 3D C/G 8 zoo layer's direct tensor-core kernels beyond the pool
# (dgrad_3d_cg8.json, fwd_3d_cg8.json: channel tiles of 8-64, one-tile and persistent CTAs),
# after call_b's ncu showed the pool's best dgrad member at one 198 KB CTA per SM.
#   tar xJf target/carry/bins.tar.xz && (timeout 560 bash results/h200/s19/call_c.sh; ...)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s19
SECONDS=0
for d in dgrad fwd; do
  v=$([ $d = fwd ] && echo forward || echo bwd_data)
  timeout 260 $B sweep --variant $v --problems ${d}_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1 --config $S/${d}_3d_cg8.json --vs cudnn --output $R/${d}_3d_cg8.csv --batch-size 200 --workers 16 > $R/${d}_3d_cg8.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/${d}_3d_cg8.log
  tar czf $OUT/call_c.tgz -C $OUT r
done
gzip -f $R/*.messages.jsonl 2>/dev/null
tar czf $OUT/call_c.tgz -C $OUT r && rm -rf $R
