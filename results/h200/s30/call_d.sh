# Session 30, call d (not run in session 30: no machine was lent; for the next session).
# The first TMA-fed kernel (c6222b9: igemm math = wgmmatma, forward pointwise): every tile of
# configs/traits/forward_tma_bf16.json as wgmmatma, wgmmaws and wgmma over 16 pointwise layers
# (pointwise_fwd.txt: the zoo's two, the dense 1x1 layers of ResNeXt-50 and some of
# RegNet/MobileNet/EfficientNet at batch 64, a grouped C/G 64 one), every row verified, cuDNN
# in the same run; then the pool on the same layers (`bench`, best-in-pool and auto). Answers:
# does a tensor map encode and a box copy land as emulated (an incorrect or crashed wgmmatma row
# says not), and is the TMA producer faster than the 256-thread producers at the same tile?
# `gconv report --pair math=wgmmaws,wgmmatma` and `math=wgmma,wgmmatma` set the twins side by side.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s30/call_d.sh; cd $OUT && tar czf d.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s30
SECONDS=0
# first, one kernel alone, so that a failure to encode or launch is plain
timeout 60 $B run --backend cuda --problem fwd_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1 \
  --kernel igemm_fwd_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmmatma_pw --iters 20 --verify > $R/run_one.log 2>&1
echo "run rc=$? ${SECONDS}s" >> $R/progress.log
timeout 300 $B sweep --variant forward --arch sm_90a --problems $S/pointwise_fwd.txt --config configs/traits/forward_tma_bf16.json \
  --vs cudnn --output $R/tma_sweep.csv --batch-size 200 > $R/tma_sweep.log 2>&1
echo "sweep rc=$? ${SECONDS}s" >> $R/progress.log
for m in wgmmaws wgmma; do
  $B report $R/tma_sweep.csv --pair math=$m,wgmmatma > $R/pair_$m.txt 2>&1
done
timeout 150 $B bench --problems $S/pointwise_fwd.txt --direction fwd --vs cudnn --output $R/bench_pw.csv \
  --batch-size 200 --workers 16 > $R/bench_pw.log 2>&1
echo "bench rc=$? ${SECONDS}s" >> $R/progress.log
gzip -f $R/*.csv $R/*.messages.jsonl 2>/dev/null; true
