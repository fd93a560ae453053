# Session 23, call c: why the cluster reduction is slower (call b: +3.4 µs on the layers whose
# best igemm member splits 4-7 ways). ncu of the same kernel, main and wip/cluster, on the real
# client's G 49 7x7 layer, plus gconv run of both at sk2/sk4/sk5/sk8 (verified).
#   scripts/h200.sh wip/cluster; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 300 bash results/h200/s23/call_c.sh; cd $OUT && tar czf c.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
M=target/release/gconv; C=target/cluster/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
P=wgrad_bf16_n64_g49_c784_k784_i7x7_f3x3_s1x1_p1x1_d1x1
for sk in 2 4 5 8; do
  K=igemm_wgrad_bf16_t32x64x32_w1x2_s4_v8x8_gm1_sk${sk}d_mma_gen
  for b in $M $C $M $C; do
    echo "== $b $K" >> $R/runs.log
    timeout 30 $b run --backend cuda --problem $P --kernel $K --iters 50 --verify >> $R/runs.log 2>&1
  done
done
echo "runs ${SECONDS}s" >> $R/runs.log
K=igemm_wgrad_bf16_t32x64x32_w1x2_s4_v8x8_gm1_sk5d_mma_gen
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for b in $M $C; do
  tag=$([ $b = $M ] && echo main || echo cluster)
  timeout 90 $NCU --set full -k regex:igemm -c 2 $b run --backend cuda --problem $P --kernel $K --iters 1 > $R/ncu_$tag.txt 2>&1
done
echo "ncu ${SECONDS}s" >> $R/runs.log
true
