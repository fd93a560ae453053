# Session 30, call f (not run in session 30: for the next session, after call d).
# The three directions through im2col copies (igemm math = wgmmatma, fast_path general): every
# general tile of configs/traits/{forward,bwd_data,bwd_weight}_tma_bf16.json under wgmmatma,
# wgmmaws and wgmma over session 26's 50 registry layers per direction with C/G a multiple of
# 64 (results/h200/s26/{fwd,dgrad}_halo_registry.txt, the forward list as backward weight: 1D
# and 2D, a 128-wide 1D filter) and the zoo's C/G 128 layer (cuDNN beat best-in-pool there in
# backward data, 27.2 against 25.3 us, and backward weight, 42.7 against 42.0), every row
# verified, cuDNN in the same run; a sweep that runs out of time leaves its rows (the CSV is
# flushed per row). The host emulation
# of the im2col walk encodes one reading of the hardware's traversal (source::Im2col); an
# `incorrect` wgmmatma_gen row says that reading is wrong. Then the pool on the same layers.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s30/call_f.sh; cd $OUT && tar czf f.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
for d in fwd dgrad wgrad; do
  src=results/h200/s26/${d}_halo_registry.txt; [ $d = wgrad ] && src=results/h200/s26/fwd_halo_registry.txt
  sed "s/^[a-z]*_/${d}_/" $src > $R/im2col_$d.txt
  echo ${d}_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 >> $R/im2col_$d.txt
  sk=sk1d; [ $d = wgrad ] && sk=sk0d
  timeout 60 $B run --backend cuda --problem ${d}_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 \
    --kernel igemm_${d}_bf16_t128x128x64_w8x1_s4_v8x8_gm1_${sk}_wgmmatma_gen --iters 20 --verify > $R/run_one_$d.log 2>&1
  echo "run $d rc=$? ${SECONDS}s" >> $R/progress.log
done
for d in fwd dgrad wgrad; do
  v=forward; [ $d = dgrad ] && v=bwd_data; [ $d = wgrad ] && v=bwd_weight
  timeout 140 $B sweep --variant $v --arch sm_90a --problems $R/im2col_$d.txt --config configs/traits/${v}_tma_bf16.json \
    --filter "fast_path == gen" --vs cudnn --output $R/im2col_$d.csv --batch-size 200 > $R/im2col_$d.log 2>&1
  echo "sweep $d rc=$? ${SECONDS}s" >> $R/progress.log
  for m in wgmmaws wgmma; do $B report $R/im2col_$d.csv --pair math=$m,wgmmatma > $R/pair_${d}_$m.txt 2>&1; done
done
for d in fwd dgrad wgrad; do
  timeout 40 $B bench --problems $R/im2col_$d.txt --direction $d --vs cudnn --output $R/bench_$d.csv --batch-size 200 --workers 16 > $R/bench_$d.log 2>&1
  echo "bench $d rc=$? ${SECONDS}s" >> $R/progress.log
done
gzip -f $R/*.csv $R/*.messages.jsonl 2>/dev/null; true
