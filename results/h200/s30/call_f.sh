# Session 30, call f (not run in session 30: for the next session, after call d).
# Forward through im2col copies (igemm math = wgmmatma, fast_path general): every general tile
# of configs/traits/forward_tma_bf16.json under wgmmatma, wgmmaws and wgmma over session 26's
# 50 registry layers with C/G a multiple of 64 (results/h200/s26/fwd_halo_registry.txt: 1D and
# 2D, strides, a 128-wide 1D filter; the 1x1 ones run the pointwise tiles of the same file)
# and the zoo's C/G 128 layer, every row verified, cuDNN in the same run. The host emulation
# of the im2col walk encodes one reading of the hardware's traversal (source::Im2col); an
# `incorrect` wgmmatma_gen row says that reading is wrong. Then the pool on the same layers.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s30/call_f.sh; cd $OUT && tar czf f.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
P=$R/im2col_fwd.txt
cat results/h200/s26/fwd_halo_registry.txt > $P
echo fwd_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 >> $P
timeout 60 $B run --backend cuda --problem fwd_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 \
  --kernel igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmatma_gen --iters 20 --verify > $R/run_one.log 2>&1
echo "run rc=$? ${SECONDS}s" >> $R/progress.log
timeout 330 $B sweep --variant forward --arch sm_90a --problems $P --config configs/traits/forward_tma_bf16.json \
  --filter "fast_path == gen" --vs cudnn --output $R/im2col.csv --batch-size 200 > $R/im2col.log 2>&1
echo "sweep rc=$? ${SECONDS}s" >> $R/progress.log
for m in wgmmaws wgmma; do $B report $R/im2col.csv --pair math=$m,wgmmatma > $R/pair_$m.txt 2>&1; done
timeout 150 $B bench --problems $P --direction fwd --vs cudnn --output $R/bench.csv --batch-size 200 --workers 16 > $R/bench.log 2>&1
echo "bench rc=$? ${SECONDS}s" >> $R/progress.log
gzip -f $R/*.csv $R/*.messages.jsonl 2>/dev/null; true
