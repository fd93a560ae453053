# Session 23, call g: the depth-streaming direct tensor-core kernels (stages 3, not pool
# members) on the H200: a slice of their trait space swept (every row verified) over four 3D
# layers, with the pool's 3D members and cuDNN in the same run; then the zoo layer's tuned
# members against their streaming twins, alternately, verified.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 200 bash results/h200/s23/call_g.sh; cd $OUT && tar czf g.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
F="warps_m == 8 && group_merge == 1 && tile_n >= 32 && vec_b >= 2 && vec_a <= 16"
P=results/h200/s23/stream_3d.txt
timeout 70 $B sweep --variant bwd_data --problems $P --config configs/traits/bwd_data_direct_mma_stream_bf16.json --filter "$F" --vs cudnn --output $R/stream_dgrad.csv --batch-size 200 --workers 16 > $R/stream_dgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/stream_dgrad.log
timeout 60 $B sweep --variant forward --problems $P --config configs/traits/forward_direct_mma_stream_bf16.json --filter "$F" --vs cudnn --output $R/stream_fwd.csv --batch-size 200 --workers 16 > $R/stream_fwd.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/stream_fwd.log
for pair in "dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1 direct_dgrad_bf16_t112x32x16_w8x1_s%s_v8x4_gm1_sk1d_mma_gen" "fwd_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1 direct_fwd_bf16_t112x64x28_w8x1_s%s_v8x4_gm1_sk1d_mma_gen"; do
  set -- $pair
  for s in 2 3 2 3; do
    k=$(printf "$2" $s)
    echo "== $1 $k" >> $R/pairs.log
    timeout 20 $B run --backend cuda --problem $1 --kernel $k --iters 30 --verify >> $R/pairs.log 2>&1
  done
done
echo "pairs ${SECONDS}s" >> $R/pairs.log
gzip -f $R/*.messages.jsonl 2>/dev/null; true
