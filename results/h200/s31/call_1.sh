# Session 31, call 1: session 30's call 0 (the smoke test of every TMA-fed variant: eight
# `wgmmatma` kernels alone with --verify, every `wgmmatma` tile of the three TMA trait configs
# over the correctness matrix, two kernels under compute-sanitizer's memcheck), then the zoo's
# C/G 128 layer (`g2_c256_k256` 28² 3×3, the one key cuDNN still wins in backward data and one
# of two in backward weight) under every general tile of the backward TMA configs as wgmma,
# wgmmaws and wgmmatma, every row verified, cuDNN in the same run.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 570 bash results/h200/s31/call_1.sh; cd $OUT && tar czf one.tgz r; cat r/progress.log)
timeout 300 bash results/h200/s30/call_0.sh
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
for d in dgrad wgrad; do
  v=bwd_data; [ $d = wgrad ] && v=bwd_weight
  timeout 110 $B sweep --variant $v --arch sm_90a --problems ${d}_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 \
    --config configs/traits/${v}_tma_bf16.json --filter "fast_path == gen" --vs cudnn \
    --output $R/cg128_$d.csv --batch-size 200 > $R/cg128_$d.log 2>&1
  echo "cg128 $d rc=$? ${SECONDS}s" >> $R/progress.log
  $B report $R/cg128_$d.csv > $R/cg128_${d}_report.txt 2>&1
  for m in wgmmaws wgmma; do $B report $R/cg128_$d.csv --pair math=$m,wgmmatma > $R/cg128_pair_${d}_$m.txt 2>&1; done
done
gzip -f $R/*.csv $R/*.messages.jsonl 2>/dev/null; true
