# Session 21, not run (the device budget was spent): where the banded depthwise forward kernel's
# time goes, at source level. ncu with the source counters and warp-state sampling on its best
# configuration of the 7×7 56² layer (call e: direct_fwd_bf16_t512x16x64_w8x1_s1_v1x1, 44.6 µs)
# and on the pool's CUDA-core member of the same layer for comparison; then the banded kernel
# with wider channel tiles (tile_n 32 and 64 at 8 warps) on the 7×7 layers.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s21/next_call.sh; cd $OUT && tar czf n.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s21
P=fwd_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1
SECONDS=0
for k in direct_fwd_bf16_t512x16x64_w8x1_s1_v1x1_gm1_sk1d_mma_gen direct_fwd_bf16_t448x32x56_w8x1_s1_v2x7_gm1_sk1d_simt_gen; do
  timeout 150 ncu --set full --import-source yes -k "regex:${k:0:12}" -c 1 -o $R/ncu_$k \
    $B run --backend cuda --problem $P --kernel $k --iters 1 --no-graph > $R/ncu_$k.log 2>&1
  timeout 60 ncu --import $R/ncu_$k.ncu-rep --page details > $R/ncu_$k.txt 2>&1
  echo "rc=$? ${SECONDS}s" >> $R/ncu_$k.log
done
grep -E "f7x7" $S/dw_fwd.txt > $R/dw7.txt
timeout 200 $B sweep --variant forward --problems $R/dw7.txt --config configs/traits/forward_banded_bf16.json --filter "warps_m == 8 && tile_n >= 32 && vec_b == 1" --vs cudnn --output $R/banded_wide.csv --batch-size 200 --workers 16 > $R/banded_wide.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/banded_wide.log
gzip -f $R/*.messages.jsonl 2>/dev/null; true
