# Session 13, call 2: where the time goes on the wgrad keys that fall short (Nsight Compute).
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
prof() {  # name problem kernel: the full section set of the main launch and its reduction
  timeout 100 ncu --set full --launch-count 2 -k regex:wgrad -o $R/$1 $B run --backend cuda --problem $2 --kernel $3 --iters 1 --no-graph > $R/$1.run.log 2>&1
  ncu -i $R/$1.ncu-rep --page details > $R/$1.txt 2>&1; rm -f $R/$1.ncu-rep
}
prof dw7_56 wgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1 direct_wgrad_bf16_t14x32x14_w4x1_s1_v2x4_gm1_sk131d_simt_gen
prof dw3_56 wgrad_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1 direct_wgrad_bf16_t8x144x8_w8x1_s1_v4x3_gm1_sk256d_simt_gen
prof cg64_mma wgrad_bf16_n16_g8_c512_k512_i28x28_f3x3_s1x1_p1x1_d1x1 direct_wgrad_bf16_t64x64x8_w4x1_s2_v3x3_gm1_sk11d_mma_gen
prof cg64_igemm wgrad_bf16_n16_g8_c512_k512_i28x28_f3x3_s1x1_p1x1_d1x1 igemm_wgrad_bf16_t64x64x64_w4x1_s3_v8x8_gm1_sk7d_wgmma_gen
prof cg128_igemm wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk7d_wgmma_gen
prof cg32_7 wgrad_bf16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1 direct_wgrad_bf16_t64x32x8_w8x1_s2_v2x2_gm1_sk4d_mma_gen
# cuDNN's engines on the two GEMM-like keys: kernel names, grids, blocks, registers, durations.
for p in wgrad_bf16_n16_g8_c512_k512_i28x28_f3x3_s1x1_p1x1_d1x1 wgrad_bf16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1 wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1; do
  timeout 80 ncu --csv --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__cluster_size $B baseline --problems $p --repeats 1 > $R/cudnn_$p.csv 2> $R/cudnn_$p.err
done
ls -la $R; tar czf $OUT/call2.tgz -C $OUT r
