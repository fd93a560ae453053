# Session 14, call 8 (about 2 minutes; carry target/release/gconv): where the one backward-data
# key slower than cuDNN (C/G 128 g2 28², 0.75x) loses: Nsight Compute, full set, on the pool's
# best member and on its forward twin (the same GEMM shape, 15 % faster), and which cuDNN
# engine wins it (kernel names, grids, durations).
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
prof() {  # name problem kernel
  timeout 70 ncu --set full --launch-count 1 -k regex:igemm -o $R/$1 $B run --backend cuda --problem $2 --kernel $3 --iters 1 --no-graph > $R/$1.run.log 2>&1
  ncu -i $R/$1.ncu-rep --page details > $R/$1.txt 2>&1; rm -f $R/$1.ncu-rep
}
prof dgrad dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 igemm_dgrad_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmma_gen
prof fwd fwd_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 igemm_fwd_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmma_gen
timeout 60 ncu --csv --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__cluster_size $B baseline --problems dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 --repeats 1 > $R/cudnn_dgrad.csv 2> $R/cudnn_dgrad.err
grep -h "Duration\|Issued Warp\|No Eligible" $R/dgrad.txt $R/fwd.txt | head -8
tar czf $OUT/call8.tgz -C $OUT r
