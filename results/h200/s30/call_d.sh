# Session 30, call d (not run in session 30: no machine was lent; for the next session).
# The first TMA-fed kernels (igemm math = wgmmatma, pointwise, all three directions): first one
# kernel of each direction alone with --verify (a failure to encode a tensor map or to launch
# is plain there), then every tile of configs/traits/{forward,bwd_data}_tma_bf16.json as
# wgmmatma, wgmmaws and wgmma over 16 pointwise layers (pointwise_fwd.txt: the zoo's two, the
# dense 1x1 layers of ResNeXt-50 and some of RegNet/MobileNet/EfficientNet at batch 64, a
# grouped C/G 64 one; the same geometries as backward data), every row verified, cuDNN in the
# same run. Answers: does a box copy land as emulated (an incorrect or crashed wgmmatma row says
# not), and is one TMA producer faster than the 256-thread producers at the same tile?
# `gconv report --pair math=wgmmaws,wgmmatma` (and wgmma,wgmmatma) set the twins side by side.
# Call e does backward weight and the pools.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s30/call_d.sh; cd $OUT && tar czf d.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s30
SECONDS=0
for d in fwd dgrad wgrad; do
  sk=sk1d; [ $d = wgrad ] && sk=sk0d
  timeout 60 $B run --backend cuda --problem ${d}_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1 \
    --kernel igemm_${d}_bf16_t128x128x64_w8x1_s4_v8x8_gm1_${sk}_wgmmatma_pw --iters 20 --verify > $R/run_one_$d.log 2>&1
  echo "run $d rc=$? ${SECONDS}s" >> $R/progress.log
done
sed 's/^fwd_/dgrad_/' $S/pointwise_fwd.txt > $R/pointwise_dgrad.txt
for d in fwd dgrad; do
  v=$([ $d = fwd ] && echo forward || echo bwd_data)
  p=$S/pointwise_fwd.txt; [ $d = dgrad ] && p=$R/pointwise_dgrad.txt
  timeout 240 $B sweep --variant $v --arch sm_90a --problems $p --config configs/traits/${v}_tma_bf16.json --filter "fast_path == pw" \
    --vs cudnn --output $R/tma_$d.csv --batch-size 200 > $R/tma_$d.log 2>&1
  echo "sweep $d rc=$? ${SECONDS}s" >> $R/progress.log
  for m in wgmmaws wgmma; do $B report $R/tma_$d.csv --pair math=$m,wgmmatma > $R/pair_${d}_$m.txt 2>&1; done
done
gzip -f $R/*.csv $R/*.messages.jsonl 2>/dev/null; true
