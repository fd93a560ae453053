# Session 18, call 1: session 17's pending A/B of branch wip/wgmma-desc (next_call.sh of
# results/h200/s17), then how much of the small backward-weight layers' time their split
# reduction launch takes (ncu duration of every launch of the best kernel of seven zoo keys).
#   scripts/h200.sh wip/wgmma-desc; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 580 bash results/h200/s18/call1.sh; ...)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
SECONDS=0
timeout 470 bash results/h200/s17/next_call.sh
mkdir -p $OUT/ncu; B=target/release/gconv
Z=results/h200/s17/call3/zoo_wgrad.csv.gz
for p in wgrad_bf16_n32_g960_c960_k960_i7x7_f3x3_s1x1_p1x1_d1x1 \
         wgrad_bf16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1 \
         wgrad_bf16_n32_g384_c384_k384_i14x14_f7x7_s1x1_p3x3_d1x1 \
         wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 \
         wgrad_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1 \
         wgrad_bf16_n32_g1152_c1152_k1152_i7x7_f5x5_s1x1_p2x2_d1x1 \
         wgrad_bf16_n32_g14_c336_k336_i14x14_f3x3_s1x1_p1x1_d1x1; do
  [ $SECONDS -lt 560 ] || break
  k=$(awk -F, -v p="$p" 'NR>1 && $2==p && $24=="ok" && $1 !~ /^cudnn/ {print $25, $1}' $Z | sort -g | head -n 1 | cut -d' ' -f2)
  echo "== $p $k" >> $OUT/ncu/launches.txt
  timeout 25 ncu --metrics gpu__time_duration.sum,launch__grid_size -c 6 $B run --backend cuda --problem $p --kernel $k --iters 1 --no-graph 2>&1 | grep -E "wgrad|duration|grid_size" >> $OUT/ncu/launches.txt
done
echo "total ${SECONDS}s" >> $OUT/ncu/launches.txt
