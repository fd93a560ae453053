# Session 22, call a: where the direct tensor-core backward-weight kernel's time goes on the
# zoo's C/G 32 7×7 layer (13.0 µs against cuDNN's 10.1: 1.3 µs per staged tile whatever the
# split degree, session 19 call b), at source level; then session 21's next_call (the banded
# depthwise forward kernel under ncu, and its wider channel tiles on the 7×7 layers).
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s22/call_a.sh; cd $OUT && tar czf a.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
P=wgrad_bf16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1
for k in direct_wgrad_bf16_t64x32x8_w8x1_s2_v3x1_gm1_sk8d_mma_gen direct_wgrad_bf16_t64x32x8_w8x1_s2_v3x1_gm1_sk1d_mma_gen; do
  $B run --backend cuda --problem $P --kernel $k --iters 30 --verify > $R/run_$k.log 2>&1
  timeout 120 ncu --set full --import-source yes -k "regex:direct_wgrad" -c 1 -o $R/ncu_$k \
    $B run --backend cuda --problem $P --kernel $k --iters 1 --no-graph > $R/ncu_$k.log 2>&1
  timeout 60 ncu --import $R/ncu_$k.ncu-rep --page details > $R/ncu_$k.txt 2>&1
  timeout 60 ncu --import $R/ncu_$k.ncu-rep --page source --csv --print-source sass > $R/src_$k.csv 2>&1
  echo "rc=$? ${SECONDS}s" >> $R/ncu_$k.log
done
timeout 60 $B bench --problems results/h200/s22/cg32_7x7_wgrad.txt --direction wgrad --vs cudnn --output $R/bench_cg32.csv > $R/bench_cg32.log 2>&1
echo "wgrad done ${SECONDS}s"
timeout 330 bash results/h200/s21/next_call.sh
echo "all done ${SECONDS}s"
